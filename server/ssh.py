"""The SSH front: ``ssh -p 2222 HOST`` plays in the terminal app with nothing installed.

One asyncssh listener. Each interactive session with a PTY runs its own ``SessionApp`` (the
ordinary Textual app, drawing through ``ChannelDriver``) inside the server process, on an
in-process link to the lobby: SSH players are ordinary lobby members, at the same tables as TCP
clients. The SSH key is the player's identity, as a key proven over TCP is (server/identity.py):
its fingerprint owns the player's name and stats and finds their seat again after a dropped
connection and after a server restart. Without a key (where the auth mode allows) a player is a
guest who picks a name first.

Everything but an interactive session is refused: exec, subsystems (sftp), port forwarding, agent
and X11 forwarding. A session without a PTY gets a one-line hint and ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import os
from collections import Counter
from pathlib import Path
from typing import Any

import asyncssh

from ono99_tui.protocol import MAX_NAME, PROTOCOL_VERSION

from .app import Server
from .config import SSH_AUTH_MODES, ServerConfig
from .local import LocalConnection, LocalLink
from .matchmaking import play_shortcut
from .ssh_app import SessionApp
from .ssh_driver import OUTPUT_BACKLOG, ChannelTerminal, keep_task_factory

log = logging.getLogger("ono99.ssh")

HOST_KEY_FILE = "ssh_host_ed25519_key"
INPUT_WINDOW = 256 * 1024  # what a client may send ahead of the server reading it (asyncssh's default: 2 MiB)
FAILED_PASSWORD_DELAY = 1.0  # seconds, slows down guessing the shared password
CLOSE_WAIT = 5.0  # seconds sessions get to say goodbye at shutdown
CLOSE_AFTER_SESSION = 2.0  # seconds a client has to close its connection after its session ended
SHORTCUT_PREFIXES = (("watch-", True), ("join-", False))


def host_key_path_for(db_path: Path) -> Path:
    """Where ``ono99 serve`` keeps its SSH host key: next to its database."""
    return db_path.parent / HOST_KEY_FILE


def load_or_create_host_key(path: Path | None) -> asyncssh.SSHKey:
    """The ed25519 host key at ``path``, created there (mode 0600) if missing; in memory if no path."""
    if path is None:
        return asyncssh.generate_private_key("ssh-ed25519")
    if path.exists():
        return asyncssh.read_private_key(str(path))
    key = asyncssh.generate_private_key("ssh-ed25519")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key.export_private_key())
    log.info("created the SSH host key %s", path)
    return key


class Door:
    """How one SSH session's player enters the lobby: their identity and the user-name shortcut."""

    def __init__(self, front: SshFront, username: str, address: str, port: int, fingerprint: str | None) -> None:
        self.front = front
        self.server_name = front.config.name
        self.address = address
        self.port = port
        self.fingerprint = fingerprint
        self.code, self.watch = front.read_shortcut(username)
        self.play_now = play_shortcut(username) if self.code is None else None  # (edition, seats): ssh play@host
        shortcut = self.code is not None or self.play_now is not None
        self.default_name = "" if shortcut else username[:MAX_NAME]
        # A key's user name is tried as the player's name (with a shortcut instead of a name, the
        # name this key owns on the server); a guest confirms or changes it first.
        self.name_hint: str | None = None
        if fingerprint is not None:
            self.name_hint = front.server.lobby.names.name_of(fingerprint) if shortcut else username
        self.link: LocalLink | None = None

    @property
    def closed(self) -> bool:
        """The server closed this door's link (shutdown, or the same key entered elsewhere)."""
        return self.link is not None and self.link.connection.closed

    def returning(self) -> bool:
        """The lobby still knows this key's player (seated, or within the grace period)."""
        return self.fingerprint is not None and self.fingerprint in self.front.server.lobby.by_identity

    def enter(self, name: str) -> LocalLink | str:
        """Say hello (a known key comes back to its player): the link, welcomed, or why the lobby refused."""
        if self.closed:
            return "the server closed the session"
        if self.link is None:
            connection = LocalConnection(self.front.server, self.address, f"ssh {self.address}:{self.port}")
            connection.identity = self.fingerprint  # proven by the SSH login
            self.front.server.connections.add(connection)  # counted, and closed at shutdown, with TCP ones
            self.link = LocalLink(connection)
        link = self.link
        hello: dict[str, Any] = {"t": "hello", "version": PROTOCOL_VERSION, "name": name or "-", "client": "ono99-ssh"}
        link.connection.receive(hello)  # answered at once, in process
        if link.inbox.empty():
            return "the lobby did not answer"
        answer = link.inbox.get_nowait()
        if answer is None or answer.get("t") != "welcome":
            return str(answer.get("reason") if answer else "the server closed the session")
        link.welcome = answer
        log.info("ssh %s:%d entered as %r (%s)", self.address, self.port, answer.get("name"),
                 self.fingerprint or "guest")
        return link

    async def leave(self) -> None:
        if self.link is not None:
            await self.link.close()  # the seat waits for the grace period, as for a dropped TCP client
            self.front.server.connections.discard(self.link.connection)


class SshSession(asyncssh.SSHServerSession):  # type: ignore[type-arg]
    """One SSH session channel: refuses all but a shell with a PTY, then runs the app on it."""

    def __init__(self, owner: SshConnection) -> None:
        self.owner = owner
        self.front = owner.front
        self.chan: asyncssh.SSHServerChannel[bytes] | None = None
        self.term_type: str | None = None
        self.term_size = (0, 0)
        self.terminal: ChannelTerminal | None = None
        self.app: SessionApp | None = None
        self.task: asyncio.Task[None] | None = None
        self.closed = False
        self._last_input = 0.0
        self._idle_handle: asyncio.TimerHandle | None = None

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:  # type: ignore[override]
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any) -> bool:
        self.term_type = term_type or "xterm"
        self.term_size = (term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        log.info("ssh %s: refused exec", self.owner.address)
        return False

    def subsystem_requested(self, subsystem: str) -> bool:
        log.info("ssh %s: refused subsystem %r", self.owner.address, subsystem[:32])
        return False

    def session_started(self) -> None:
        chan = self.chan
        assert chan is not None
        if self.term_type is None:
            port = self.front.port
            chan.write(f"ONO 99 is played in a terminal: connect from one with 'ssh -t -p {port} HOST'.\r\n"
                       .encode())
            chan.exit(1)
            self.owner.close_soon()
            return
        config = self.front.config
        self.terminal = ChannelTerminal(self._send, term=self.term_type, size=self.term_size,
                                        env=chan.get_environment(), bytes_per_second=config.ssh_input_bytes_per_second,
                                        burst=config.ssh_input_burst, pause_reading=chan.pause_reading,
                                        resume_reading=chan.resume_reading)
        owner = self.owner
        door = Door(self.front, owner.username, owner.address, owner.port, owner.fingerprint)
        self.app = SessionApp(self.terminal, door)
        self.front.sessions.add(self)
        self._last_input = asyncio.get_running_loop().time()
        self._schedule_idle_check(config.ssh_idle_timeout)
        self.task = asyncio.create_task(self._run(self.app, door))

    async def _run(self, app: SessionApp, door: Door) -> None:
        loop = asyncio.get_running_loop()
        try:
            keep_task_factory(loop, self.front.task_factory)
            await app.run_async(mouse=True, size=self.terminal.size if self.terminal else None)
        except Exception:
            log.exception("ssh %s: the session's app failed", self.owner.address)
            app.farewell = "Sorry: the game failed on the server. Connect again to carry on."
        finally:
            farewell = app.farewell
            await door.leave()
            self.app = None  # a finished session keeps nothing of its app
            self.front.sessions.discard(self)
            self._cancel_idle_check()
            if not self.closed and self.chan is not None:
                self.closed = True
                with contextlib.suppress(Exception):
                    self.chan.write(f"{farewell}\r\n".encode())
                    self.chan.exit(0)
            self.owner.close_soon()  # one session per connection: nothing more will happen on it

    def _send(self, data: bytes) -> None:
        chan = self.chan
        if self.closed or chan is None or chan.is_closing():
            return
        chan.write(data)
        if chan.get_write_buffer_size() > OUTPUT_BACKLOG:
            log.info("ssh %s: not taking its output, closing", self.owner.address)
            self.closed = True
            chan.abort()
            self.end("too slow: the terminal did not take its updates")

    def data_received(self, data: bytes, datatype: int | None) -> None:
        self._last_input = asyncio.get_running_loop().time()
        if self.terminal is not None:
            self.terminal.receive(data)

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        if self.terminal is not None:
            self.terminal.resize(width, height)

    def break_received(self, msec: int) -> bool:
        return False

    def eof_received(self) -> bool:
        self.end("Bye.")
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.end("the connection was lost")

    def end(self, reason: str) -> None:
        """Stop the app (which gives the terminal back and prints ``reason``), or close the channel."""
        self._cancel_idle_check()
        app = self.app
        if app is not None:
            app.farewell = reason
            app.exit()
        elif self.chan is not None and not self.closed:
            self.closed = True
            self.chan.close()

    # --- idle timeout ------------------------------------------------------------------------------
    def _schedule_idle_check(self, delay: float) -> None:
        self._idle_handle = asyncio.get_running_loop().call_later(max(delay, 0.1), self._idle_check)

    def _idle_check(self) -> None:
        timeout = self.front.config.ssh_idle_timeout
        left = self._last_input + timeout - asyncio.get_running_loop().time()
        if left > 0:
            self._schedule_idle_check(left)
            return
        self._idle_handle = None
        log.info("ssh %s: idle, closing", self.owner.address)
        self.end(f"Closed after {timeout / 60:g} minutes without a key pressed.")

    def _cancel_idle_check(self) -> None:
        if self._idle_handle is not None:
            self._idle_handle.cancel()
            self._idle_handle = None


class SshConnection(asyncssh.SSHServer):
    """One SSH connection: limits, authentication and the identity it proves; one session at most."""

    def __init__(self, front: SshFront) -> None:
        self.front = front
        self.conn: asyncssh.SSHServerConnection | None = None
        self.address = ""
        self.port = 0
        self.refusal: str | None = None
        self.username = ""
        self.fingerprint: str | None = None
        self.session: SshSession | None = None
        self._key: asyncssh.SSHKey | None = None
        self._close_handle: asyncio.TimerHandle | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername")
        self.address, self.port = (str(peer[0]), int(peer[1])) if isinstance(peer, tuple) else ("?", 0)
        self.refusal = self.front.admit(self)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._close_handle is not None:
            self._close_handle.cancel()
            self._close_handle = None
        if self.refusal is None:
            self.front.release(self)

    def close_soon(self, delay: float = CLOSE_AFTER_SESSION) -> None:
        """Close the connection unless the client does first (OpenSSH closes when its session ends)."""
        if self._close_handle is None and self.conn is not None:
            self._close_handle = asyncio.get_running_loop().call_later(delay, self.conn.close)

    def begin_auth(self, username: str) -> bool:
        if self.refusal is not None:
            log.warning("ssh %s: refused: %s", self.address, self.refusal)
            raise asyncssh.DisconnectError(asyncssh.DISC_TOO_MANY_CONNECTIONS, self.refusal)
        self.username = username
        return True

    # Each auth request runs to its end before the next starts, so the key of the last
    # validate_public_key call is the one proven when publickey succeeds; the guest and password
    # methods forget it, so a key offered but never signed for is never the identity.
    def public_key_auth_supported(self) -> bool:
        return self.front.auth in ("any-key", "authorized-keys")

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        allowed = self.front.auth == "any-key" or self.front.key_is_authorized(key, self.address)
        self._key = key if allowed else None
        return allowed

    def kbdint_auth_supported(self) -> bool:
        if self.front.auth == "password":
            return NotImplemented  # type: ignore[no-any-return]  # asyncssh then asks for the password
        return self.front.auth == "any-key"

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        self._key = None  # a client without a key: a guest, no questions asked
        return True

    def password_auth_supported(self) -> bool:
        return self.front.auth == "password"

    async def validate_password(self, username: str, password: str) -> bool:
        expected = self.front.config.ssh_password or ""
        if expected and hmac.compare_digest(password.encode(), expected.encode()):
            self._key = None
            return True
        await asyncio.sleep(FAILED_PASSWORD_DELAY)
        return False

    def auth_completed(self) -> None:
        self.fingerprint = self._key.get_fingerprint() if self._key is not None else None
        # A connection holds a slot: it has the login timeout again to open its session.
        self.close_soon(self.front.config.ssh_login_timeout)

    def session_requested(self) -> SshSession | bool:
        if self.session is not None:
            return False  # one session per connection: the limits count connections
        if self._close_handle is not None:
            self._close_handle.cancel()
            self._close_handle = None
        self.session = SshSession(self)
        return self.session

    # Port forwarding of every kind is refused.
    def connection_requested(self, dest_host: str, dest_port: int, orig_host: str, orig_port: int) -> bool:
        log.info("ssh %s: refused port forwarding", self.address)
        return False

    def server_requested(self, listen_host: str, listen_port: int) -> bool:
        log.info("ssh %s: refused remote port forwarding", self.address)
        return False

    def unix_connection_requested(self, dest_path: str) -> bool:
        return False

    def unix_server_requested(self, listen_path: str) -> bool:
        return False


class SshFront:
    """The SSH listener of a ``Server``: ``await start()``, then ``await close()``."""

    def __init__(self, server: Server, config: ServerConfig | None = None) -> None:
        self.server = server
        self.config = config or server.config
        if self.config.ssh_auth not in SSH_AUTH_MODES:
            raise ValueError(f"unknown SSH auth mode {self.config.ssh_auth!r}; one of {', '.join(SSH_AUTH_MODES)}")
        if self.config.ssh_auth == "password" and not self.config.ssh_password:
            raise ValueError("the password auth mode needs a password")
        if self.config.ssh_auth == "authorized-keys" and self.config.ssh_authorized_keys is None:
            raise ValueError("the authorized-keys auth mode needs an authorized_keys file")
        self.auth = self.config.ssh_auth
        # Files are read here, so a bad path or key fails before anything listens.
        self.host_key = load_or_create_host_key(self.config.ssh_host_key)
        self.fingerprint = self.host_key.get_fingerprint()
        self._authorized: asyncssh.SSHAuthorizedKeys | None = None
        if self.auth == "authorized-keys":
            self._authorized = asyncssh.read_authorized_keys(str(self.config.ssh_authorized_keys))
        self.sessions: set[SshSession] = set()
        self.connections: set[SshConnection] = set()
        self.task_factory: Any = None
        self.closing = False
        self._per_address: Counter[str] = Counter()
        self._listener: asyncssh.SSHAcceptor | None = None

    @property
    def port(self) -> int:
        assert self._listener is not None
        return int(self._listener.get_port())

    async def start(self) -> None:
        config = self.config
        self.task_factory = asyncio.get_running_loop().get_task_factory()
        host = config.ssh_host if config.ssh_host is not None else config.host
        self._listener = await asyncssh.create_server(
            lambda: SshConnection(self), host or None, config.ssh_port or 0,
            server_host_keys=[self.host_key], server_version="ONO99",
            encoding=None, allow_pty=True, line_editor=False,  # raw bytes: Textual reads every key itself
            x11_forwarding=False, agent_forwarding=False, allow_scp=False,
            login_timeout=config.ssh_login_timeout, keepalive_interval=config.ssh_keepalive,
            keepalive_count_max=3, window=INPUT_WINDOW)

    # --- limits ------------------------------------------------------------------------------------
    def admit(self, connection: SshConnection) -> str | None:
        """None if the connection may go on, else why not; an admitted one must be released."""
        config = self.config
        if self.closing:
            return "the server is shutting down"
        if len(self.connections) >= config.ssh_max_sessions:
            return "the server is full; try again later"
        if self._per_address[connection.address] >= config.ssh_max_sessions_per_address:
            return f"too many sessions from {connection.address}"
        self.connections.add(connection)
        self._per_address[connection.address] += 1
        return None

    def release(self, connection: SshConnection) -> None:
        if connection in self.connections:
            self.connections.discard(connection)
            self._per_address[connection.address] -= 1
            if self._per_address[connection.address] <= 0:
                del self._per_address[connection.address]

    # --- identity ----------------------------------------------------------------------------------
    def key_is_authorized(self, key: asyncssh.SSHKey, address: str) -> bool:
        return self._authorized is not None and self._authorized.validate(key, address, address) is not None

    def read_shortcut(self, username: str) -> tuple[str | None, bool]:
        """``watch-CODE`` and ``join-CODE``, or a bare invite code of a table: (code, watch)."""
        lowered = username.lower()
        for prefix, watch in SHORTCUT_PREFIXES:
            if lowered.startswith(prefix) and len(username) > len(prefix):
                return username[len(prefix):].strip().upper()[:16], watch
        wanted = username.strip().upper()
        if wanted and any(table.code == wanted for table in self.server.lobby.tables.values() if table.code):
            return wanted, False
        return None, False

    # --- shutdown ----------------------------------------------------------------------------------
    def stop_listening(self) -> None:
        self.closing = True
        if self._listener is not None:
            self._listener.close()

    async def close(self, reason: str = "the server is shutting down") -> None:
        """End every session (each prints ``reason``) and close every connection. Safe twice."""
        self.stop_listening()
        tasks = [s.task for s in self.sessions if s.task is not None]
        for session in list(self.sessions):
            session.end(f"The server closed the session: {reason}")
        if tasks:
            await asyncio.wait(tasks, timeout=CLOSE_WAIT)
        for connection in list(self.connections):
            if connection.conn is not None:
                connection.conn.close()
        if self._listener is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._listener.wait_closed(), CLOSE_WAIT)
            self._listener = None
