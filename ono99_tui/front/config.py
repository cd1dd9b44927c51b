"""Settings of an SSH front: where its game server is, how it is trusted, and the SSH limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ono99_kernel.ssh_settings import SshSettings

DEFAULT_SSH_PORT = 2222
# HTTPS on a port a user may open without privileges; 443 is for a reverse proxy in front (docs/web.md).
DEFAULT_WEB_PORT = 8443


@dataclass(slots=True)
class FrontConfig:
    server_host: str = "127.0.0.1"  # the game server's TCP address
    server_port: int = 9999
    # The fingerprint of the game server's TLS certificate (ono99_kernel/tls.py): the front speaks to
    # no other server, and its credential travels only inside that TLS session.
    server_fingerprint: str = ""
    credential: str = ""  # what makes the game server trust this front (ono99_kernel/fronts.py)
    name: str = "ONO 99"  # the server's name, until its welcome tells
    ssh_host: str = "0.0.0.0"
    ssh_port: int = DEFAULT_SSH_PORT  # 0: any free port
    reuse_port: bool = False  # several front processes share the SSH port (SO_REUSEPORT)
    # The host key, access policy (the game server's own, applied at the SSH login), timeouts and limits.
    ssh: SshSettings = field(default_factory=SshSettings)
    link_timeout: float = 10.0  # seconds to reach the game server and be welcomed
    # All the process's players on one link to the game server (docs/protocol.md section 3c); False: a TLS
    # connection of its own for each.
    shared_link: bool = True
    listen_ssh: bool = True  # False: a front for browsers only
    # --- the web front (ono99_tui/front/web.py): HTTPS, the same sessions in a browser ---
    web_host: str = "0.0.0.0"
    web_port: int | None = None  # None: no web listener; 0: any free port
    web_cert: Path | None = None  # the TLS certificate and key of the web port (PEM files)
    web_key: Path | None = None
