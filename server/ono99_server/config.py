"""Server settings, all with defaults a public server can run with."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ono99_kernel.core.arena import BOT_WAIT
from ono99_kernel.protocol import DEFAULT_PORT
from ono99_kernel.ssh_settings import SshSettings

DEFAULT_SSH_PORT = 2222


@dataclass(slots=True)
class ServerConfig:
    host: str = "0.0.0.0"
    port: int | None = DEFAULT_PORT  # None: no TCP listener; 0: any free port
    name: str = "ONO 99"
    db_path: Path | None = None  # an SQLite file. None: nothing is saved (tests, embedded local games)
    db_url: str | None = None  # a PostgreSQL database (postgresql://…): the store, in place of db_path
    # --- one node of several on one PostgreSQL database (cluster.py, lease.py in server/ono99_server/) ---
    cluster_url: str | None = None  # the Redis all nodes share (redis://… or rediss://…, TLS); None: alone
    lease_seconds: float = 10.0  # a node that stops renewing loses its tables after this long
    node_id: str | None = None  # None: HOSTNAME-PID-RANDOM
    node_address: str | None = None  # HOST:PORT where players reach this node (None: the listener's)
    # The TLS certificate and key of the TCP listener (ono99_kernel/tls.py): made there at the first start
    # and kept. None: a new certificate for this run only (tests, a server without a database).
    tls_cert: Path | None = None
    tls_key: Path | None = None
    grace_seconds: float = 120.0  # how long a dropped player's seat waits for them
    default_turn_seconds: int = 30  # the turn clock of a new table unless it says otherwise
    bot_delay: float = 0.8  # pause before a bot acts, so people can follow the play
    hello_timeout: float = 5.0  # from connecting to a successful hello
    max_waiting_hellos: int = 256  # connections that have not said hello yet: a budget of their own
    max_waiting_hellos_per_address: int = 8
    draw_window: float = 0.0  # at least this long before a bot plays while a person's manual draw is open
    play_now_wait: float = 20.0  # seconds a play-now queue's first player waits before bots fill the table
    arena_bot_wait: float = BOT_WAIT  # seconds an arena's player left over waits before bots fill their table
    arena_starts_in: float = 3.0  # seconds from an arena table's seating to its game's start
    idle_timeout: float = 900.0  # a connection that sends nothing for this long is closed
    write_timeout: float = 10.0  # a client that does not take its data for this long is dropped
    send_queue_frames: int = 512  # frames waiting for one client before it counts as stuck
    send_queue_bytes: int = 128 * 1024  # bytes of frames waiting for one client before it counts as stuck
    socket_send_buffer: int = 32 * 1024  # the kernel's send buffer per client (SO_SNDBUF; Linux doubles it)
    max_connections: int = 2000
    max_connections_per_address: int = 32
    max_tables_per_player: int = 3
    new_names_burst: int = 10  # names new keys may claim from one address at once ...
    new_names_per_hour: float = 10.0  # ... and then per hour (server/ono99_server/rates.py's NewNames)
    # Four programs playing each other at full speed send about 22 messages a second each: the limit
    # leaves honest play well alone and still cuts a flood to a trickle.
    messages_per_second: float = 50.0
    message_burst: int = 100
    lobby_push_interval: float = 0.5  # seconds between pushes of the table list to the lobby
    chat_per_minute: int = 20
    chat_history: int = 50
    advertise: bool = False  # announce the server on the local network (mDNS); `ono99 serve` turns it on
    # --- the SSH front (ono99_tui/front/ssh.py, in processes of its own) ---
    ssh_port: int | None = None  # None: no SSH listener; 0: any free port
    ssh_host: str | None = None  # None: the address of the TCP listener
    # Its host key, access policy (that of every listener, TCP and SSH alike: ono99_kernel/access.py),
    # timeouts and limits; this server's own fronts are given it as it is.
    ssh: SshSettings = field(default_factory=SshSettings)
    # --- fronts: SSH front processes that reach this server over TCP (ono99_tui/front/) ---
    # Credentials that make a connection a trusted front, which may assert a player's key and
    # address in its hello (docs/protocol.md section 3b). Empty: no front is trusted.
    front_credentials: tuple[str, ...] = ()
    fronts_only: bool = False  # the TCP listener takes only trusted fronts (TCP play is off, SSH on)
    # --- running a public host (server/ono99_server/moderation.py, server/ono99_server/metrics.py) ---
    admins: Path | None = None  # an OpenSSH authorized_keys file: the operators' keys
    names_deny: Path | None = None  # words no player name may contain (one a line)
    metrics_port: int | None = None  # None: no metrics endpoint; 0: any free port
    metrics_host: str = "127.0.0.1"  # the endpoint is for the host's monitoring, not for players
    report_burst: int = 3  # reports a player may send at once ...
    report_every: float = 600.0  # ... then one more per this many seconds
