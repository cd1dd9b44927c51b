"""The SSH front: ``ssh -p 2222 HOST`` plays in the terminal app with nothing installed.

One asyncssh listener, in a process of its own (``ono99 serve`` starts several, sharing the port;
``ono99 front`` runs one on another machine). Each interactive session with a PTY runs its own
``SessionApp`` (the ordinary Textual app, drawing through ``ChannelDriver``) on a TCP link to the
game server, one connection per player, speaking the protocol as any client does: SSH players are
ordinary lobby members, at the same tables as TCP clients. The front is trusted by the game server
(a credential, ono99_kernel/fronts.py) to assert what the SSH login established: the player's key and
address. The SSH key is the player's identity, as a key proven over TCP is (server/ono99_server/key_proof.py):
its fingerprint owns the player's name and stats and finds their seat again after a dropped
connection and after a server restart. Without a key (where the auth mode allows) a player is a
guest who picks a name first.

Everything but an interactive session is refused: exec (with a one-line reason on stderr),
subsystems (sftp), port forwarding, agent and X11 forwarding. A session without a PTY gets a
one-line hint and ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import re
import weakref
from collections import Counter
from pathlib import Path
from typing import Any

from ono99_kernel.access import AccessPolicy, refusal_pause
from ono99_kernel.limits import HelloQueue
from ono99_kernel.protocol import MAX_NAME
from ono99_kernel.ssh_library import asyncssh

from ..client.connection import OtherNodes
from . import ssh_words
from .config import FrontConfig
from .door import PlayerLink, close_front_links, link_player
from .idle import IdleWatch
from .pacing import PACER
from .session_app import SessionApp
from .sharing import ScreenSharing, SharingSession, TapInbox, screen_typed_on, tap_link
from .ssh_plain import PlainSessionApp, plain_user
from .textual_driver import LEAVE_SEQUENCE, MOUSE_OFF, OUTPUT_BACKLOG, ChannelTerminal, keep_task_factory

log = logging.getLogger("ono99.ssh")

INPUT_WINDOW = 256 * 1024  # what a client may send ahead of the server reading it (asyncssh's default: 2 MiB)
CLOSE_WAIT = 5.0  # seconds sessions get to say goodbye at shutdown
CLOSE_AFTER_SESSION = 2.0  # seconds a client has to close its connection after its session ended
SHORTCUT_PREFIXES = (("watch-", True), ("join-", False))
# of an invite code (server/ono99_server/table_room.py makes them)
CODE_ALPHABET = frozenset("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
CODE_LENGTH = 6
OPENING_AT_ONCE = 3  # connections of their own a front opens at once: the game server lets 8 per address wait
RETRY_AT_LEAST = 5  # seconds a login told the front is busy is asked to wait, at least
LOGIN_WORDS_EARLY = 1.0  # a login still under way this long before its timeout is told why it ends


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


ARENA_USER = "arena"  # ssh arena@host joins the public arena running (or the next to start)
PLAY_USER = re.compile(r"play(?:-(2022|1980))?(?:-([2-8]))?", re.IGNORECASE)


def play_shortcut(username: str) -> tuple[str, int] | None:
    """The SSH user names that play now: ``play`` (2022, 4 seats), ``play-1980``, ``play-3``,
    ``play-1980-3``: (edition, seats), or None for any other name."""
    match = PLAY_USER.fullmatch(username.strip())
    if match is None:
        return None
    return match.group(1) or "2022", int(match.group(2) or 4)


NO_KEY_BANNER = ("ONO 99: this server lets in only the SSH keys its host listed, and your ssh offered none. "
                 "Make a key if you have none ('ssh-keygen -t ed25519'), send the server's host its public key "
                 "line (the one line of ~/.ssh/id_ed25519.pub) for the server's authorized_keys file, then "
                 "connect again.\r\n")


class Door:
    """How one SSH session's player enters the lobby: their identity and the user-name shortcut."""

    def __init__(self, front: SshFront, username: str, address: str, port: int, fingerprint: str | None) -> None:
        self.front = front
        self.server_name = front.config.name
        self.address = address
        self.port = port
        self.fingerprint = fingerprint
        self.code, self.watch, self.maybe_name = front.read_shortcut(username)
        self.play_now = play_shortcut(username) if self.code is None else None  # (edition, seats): ssh play@host
        self.arena = self.code is None and username.strip().lower() == ARENA_USER  # ssh arena@host
        # a user name that is (or looks like) an invite code is never offered as a name: Enter would make it one
        self.default_name = "" if self.code or self.play_now or self.arena else username[:MAX_NAME]
        # A key's user name is tried as the player's name (with a shortcut instead of a name, ""
        # asks for the name this key owns on the server); a guest confirms or changes it first.
        self.name_hint: str | None = None
        if fingerprint is not None:
            self.name_hint = "" if self.code or self.play_now or self.arena else username
        self.keys_kept = front.auth != "password"
        self.name_help = ""
        self.link: PlayerLink | None = None
        self.tap: TapInbox | None = None  # the link's inbox, which a shared screen's app may be fed from

    async def enter(self, name: str, resume: str | None = None) -> PlayerLink | tuple[str, bool]:
        """Say hello for the player over a new link to the game server (a known key comes back to
        its player): the link, welcomed, or why the lobby refused (in the session's language) and
        whether another name could change that. Raises ``OSError`` when the game server cannot be
        reached."""
        result = await link_player(self.front.config, self.front.opening, self.address, self.fingerprint, name,
                                   resume, "ono99-ssh", OtherNodes.of(self.link) if resume else None)
        if isinstance(result, tuple):
            return result
        self.link = result
        self.tap = tap_link(result)
        log.info("ssh %s:%d entered as %r (%s)", self.address, self.port, result.welcomed_name,
                 self.fingerprint or "guest")
        return result

    async def leave(self) -> None:
        if self.link is not None:
            await self.link.close()  # the seat waits for the grace period, as for a dropped TCP client


class SshSession(SharingSession, asyncssh.SSHServerSession[bytes]):
    """One SSH session channel: refuses all but a shell with a PTY, then runs the app on it."""

    def __init__(self, owner: SshConnection) -> None:
        self.owner = owner
        self.front = owner.front
        self.chan: asyncssh.SSHServerChannel[bytes] | None = None
        self.term_type: str | None = None
        self.term_size = (0, 0)
        self.command: str | None = None  # an exec request: answered with a reason, never run
        self.terminal: ChannelTerminal | None = None
        self.app: SessionApp | PlainSessionApp | None = None
        self.task: asyncio.Task[None] | None = None
        self.closed = False
        self._idle = IdleWatch(self._last_game_update, self._idle_over)
        self.last_words = ""  # the farewell of end(), said by the front if the app does not end in time
        self.line_end = "\r\n"  # "\n" without a PTY (a plain session): the client's terminal adds the "\r"
        self.plain = False  # lines of text (ssh plain@HOST): no screen to give back
        self.door: Door | None = None
        self._typed_on: weakref.ref[object] | None = None  # the screen its app showed when the client last typed

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any) -> bool:
        self.term_type = term_type or "xterm"
        self.term_size = (term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        # Accepted only to say why on stderr (a refused request shows just "exec request failed");
        # nothing is run: session_started answers and ends the session.
        log.info("ssh %s: refused exec", self.owner.address)
        self.command = command
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        log.info("ssh %s: refused subsystem %r", self.owner.address, subsystem[:32])
        return False

    def session_started(self) -> None:
        chan = self.chan
        assert chan is not None
        port = self.front.port
        if self.command is not None:
            chan.write_stderr(f"{ssh_words.no_commands(chan.get_environment(), port)}\r\n".encode())
            chan.exit(1)
            self.owner.close_soon()
            return
        owner = self.owner
        plain, username = plain_user(owner.username)  # plain@HOST: lines of text, a PTY or not
        if self.term_type is None and not plain:
            chan.write(f"{ssh_words.no_terminal(chan.get_environment(), port)}\r\n".encode())
            chan.exit(1)
            self.owner.close_soon()
            return
        config = self.front.config
        self.plain = plain
        if self.term_type is None:
            self.line_end = "\n"
        self.terminal = ChannelTerminal(self._send, term=self.term_type or "dumb", size=self.term_size,
                                        env=chan.get_environment(), bytes_per_second=config.ssh.input_bytes_per_second,
                                        burst=config.ssh.input_burst, pause_reading=chan.pause_reading,
                                        resume_reading=chan.resume_reading)
        door = self.door = Door(self.front, username, owner.address, owner.port, owner.fingerprint)
        self.app = PlainSessionApp(self.terminal, door, line_at_a_time=self.term_type is None) if plain \
            else SessionApp(self.terminal, door)
        if isinstance(self.app, SessionApp):
            self.app.on_first_screen = owner.first_screen
            self.app.after_batch = lambda: self.front.sharing.consider(self)
        else:
            owner.login_over()
        self.front.sessions.add(self)
        self._idle.start(config.ssh.idle_timeout)
        self.task = asyncio.create_task(self._run(self.app, door))

    async def _run(self, app: SessionApp | PlainSessionApp, door: Door) -> None:
        loop = asyncio.get_running_loop()
        try:
            keep_task_factory(loop, self.front.task_factory)
            await app.run_async(mouse=True, size=self.terminal.size if self.terminal else None)
        except Exception:
            log.exception("ssh %s: the session's app failed", self.owner.address)
            app.farewell = ssh_words.game_failed(self.terminal.env if self.terminal else {})
        finally:
            self.front.sharing.leave(self, repaint=False)
            farewell = app.farewell
            self.owner.login_over()
            self.app = None  # a finished session keeps nothing of its app
            self.front.sessions.discard(self)
            self._idle.cancel()
            # The words first: leaving a game server that is gone can take seconds (its link's close
            # waits for an answer), and a front closing meanwhile would cut the connection unsaid.
            self.say_farewell(farewell)
            self.door = None  # nor of its link
            await door.leave()
            self.owner.close_soon()  # one session per connection: nothing more will happen on it

    def say_farewell(self, farewell: str, leave_screen: bool = False) -> None:
        """Print ``farewell`` and close the channel (``leave_screen``: the app could not give the terminal
        back itself, so its screen modes are turned off first)."""
        if self.closed or self.chan is None:
            return
        self.closed = True
        with contextlib.suppress(Exception):
            self.chan.write(((MOUSE_OFF + LEAVE_SEQUENCE) if leave_screen and not self.plain else "").encode()
                            + f"{farewell}{self.line_end}".encode())
            self.chan.exit(0)

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

    def _last_game_update(self) -> float:
        """When the session's screen last showed a running game's move (its link got it, if its app
        is held: ono99_tui/front/sharing.py)."""
        tap = self.tap
        return max(self.app.last_game_update if self.app is not None else 0.0,
                   tap.last_game_update if tap is not None else 0.0)

    def data_received(self, data: bytes, datatype: int | None) -> None:
        self._idle.touch()
        if self.terminal is not None:
            self.front.sharing.leave(self)  # its own app takes the key, and draws what it does
            self._note_typed()
            self.terminal.receive(data)

    def _note_typed(self) -> None:
        self._typed_on = screen_typed_on(self.app)

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        if self.terminal is not None:
            self.front.sharing.leave(self)
            self.terminal.resize(width, height)

    def break_received(self, msec: int) -> bool:
        return False

    def eof_received(self) -> bool:
        # The client sends no more (``ssh -tt HOST </dev/null``): end the app. The channel stays
        # half open so the app can give the terminal back and print its farewell, then close it.
        self.end(ssh_words.bye(self.terminal.env if self.terminal else {}))
        return self.app is not None

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.end("the connection was lost")

    def end(self, reason: str) -> None:
        """Stop the app (which gives the terminal back and prints ``reason``), or close the channel."""
        self._idle.cancel()
        self.front.sharing.leave(self, repaint=False)  # its own app gives the terminal back
        app = self.app
        if app is not None:
            app.farewell = reason
            self.last_words = reason
            app.exit()
        elif self.chan is not None and not self.closed:
            self.closed = True
            self.chan.close()

    # --- idle timeout ------------------------------------------------------------------------------
    def _idle_over(self, timeout: float) -> None:
        log.info("ssh %s: idle, closing", self.owner.address)
        self.end(ssh_words.idle_closed(self.terminal.env if self.terminal else {}, timeout / 60))


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
        self._told: set[str] = set()  # fingerprints of refused keys the client was told about
        self._close_handle: asyncio.TimerHandle | None = None
        self._logging_in = False  # counted by the process's pacer until its first screen (or its end)
        self.authenticating = False  # its key exchange is done and its login has begun
        self.login_started = 0.0
        self._login_timer: asyncio.TimerHandle | None = None

    def login_began(self) -> None:
        self._logging_in = True
        PACER.login_started()
        loop = asyncio.get_running_loop()
        self.login_started = loop.time()
        timeout = self.front.config.ssh.login_timeout
        if timeout > 2 * LOGIN_WORDS_EARLY:
            self._login_timer = loop.call_later(timeout - LOGIN_WORDS_EARLY, self._login_too_slow)

    def login_over(self, shown: bool = False) -> None:
        """Its first screen is up (``shown``), or it ended: its login no longer holds the other
        sessions' redraws back."""
        self._cancel_login_timer()
        self.front.starting.discard(self)  # if it was counted as starting
        if self._logging_in:
            self._logging_in = False
            PACER.login_ended()
            if shown:
                self.front.note_login(asyncio.get_running_loop().time() - self.login_started)

    def first_screen(self) -> None:
        self.login_over(shown=True)

    def _cancel_login_timer(self) -> None:
        if self._login_timer is not None:
            self._login_timer.cancel()
            self._login_timer = None

    def _login_too_slow(self) -> None:
        """No first screen yet as the login timeout nears. Before its authentication, a front that is
        busy says so and when to come back, instead of the bare close the timeout would be; after it
        the front is what keeps the login waiting (the app's start, the link to the game server),
        so the client is told so, in any case: on its terminal if its session is open."""
        self._login_timer = None
        if self.conn is None:
            return
        words = self.front.busy_words(self.address)
        session = self.session
        if session is not None and session.chan is not None:
            log.info("ssh %s: no first screen in time, told to come back", self.address)
            session.end(words)  # its app ends when it can; the words go now
            session.say_farewell(words, leave_screen=True)
            self.login_over()
            self.close_soon()
        elif self in self.front.starting or PACER.busy:
            log.info("ssh %s: the login did not finish in time on a busy front", self.address)
            self.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, words)

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername")
        self.address, self.port = (str(peer[0]), int(peer[1])) if isinstance(peer, tuple) else ("?", 0)
        self.refusal = self.front.admit(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.login_over()
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
        self.authenticating = True
        if self.refusal is not None:
            log.warning("ssh %s: refused: %s", self.address, self.refusal)
            raise asyncssh.DisconnectError(asyncssh.DISC_TOO_MANY_CONNECTIONS, self.refusal)
        if not self.front.may_start(self):
            log.info("ssh %s: refused, too many logins starting", self.address)
            raise asyncssh.DisconnectError(asyncssh.DISC_TOO_MANY_CONNECTIONS, self.front.busy_words(self.address))
        self.username = username
        return True

    # Each auth request runs to its end before the next starts, so the key of the last
    # validate_public_key call is the one proven when publickey succeeds; the guest and password
    # methods forget it, so a key offered but never signed for is never the identity.
    def public_key_auth_supported(self) -> bool:
        return self.front.auth in ("any-key", "authorized-keys")

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        fingerprint = key.get_fingerprint()
        line = key.export_public_key().decode().strip()
        refusal = self.front.access.decide(fingerprint, None, self.address, line)
        self._key = key if refusal is None else None
        if refusal is not None and self.conn is not None and fingerprint not in self._told:
            self._told.add(fingerprint)  # a client asks about a key before it signs with it: say it once
            # Shown by the client before "Permission denied": the line the host adds to authorized_keys.
            text = (f"ONO 99: your key {fingerprint} is not on this server's list. Send the server's host this "
                    f"line for its authorized_keys file, then connect again:\r\n\r\n{line}\r\n\r\n"
                    if refusal.params.get("why") == "key_not_listed" else f"ONO 99: {refusal}\r\n")
            with contextlib.suppress(Exception):
                self.conn.send_auth_banner(text)
        return refusal is None

    def kbdint_auth_supported(self) -> bool:
        if self.front.auth == "password":
            return NotImplemented  # type: ignore[no-any-return]  # asyncssh then asks for the password
        # listed keys only: offered so that a client without a listed key hears why, then is refused
        return self.front.auth in ("any-key", "authorized-keys")

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        self._key = None
        if self.front.auth == "any-key":
            return True  # a client without a key: a guest, no questions asked
        if not self._told and self.conn is not None:  # a refused key was told already
            self._told.add("")
            with contextlib.suppress(Exception):
                self.conn.send_auth_banner(NO_KEY_BANNER)
        return False

    def password_auth_supported(self) -> bool:
        return self.front.auth == "password"

    async def validate_password(self, username: str, password: str) -> bool:
        refusal = self.front.access.decide(None, password, self.address)
        if refusal is None:
            self._key = None
            return True
        pause = refusal_pause(refusal.params)
        if not pause and self.conn is not None:  # refused unchecked: the client shows how long to wait
            log.info("ssh %s: %s", self.address, refusal)
            with contextlib.suppress(Exception):
                self.conn.send_auth_banner(f"ONO 99: {refusal}\r\n")
        await asyncio.sleep(pause)
        return False

    def auth_completed(self) -> None:
        # its login timer runs on: the first screen is due within the login timeout, or the client is told why not
        self.fingerprint = self._key.get_fingerprint() if self._key is not None else None
        self.front.logged_in(self)
        # A connection holds a slot: it has the login timeout again to open its session.
        self.close_soon(self.front.config.ssh.login_timeout)

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
    """An SSH listener whose players reach the game server over TCP: ``await start()``, then
    ``await close()``."""

    def __init__(self, config: FrontConfig) -> None:
        self.config = config
        # The game server's access policy, applied at the SSH login; the server trusts this front's word.
        self.access = AccessPolicy.from_settings(config.ssh)
        self.auth = self.access.mode
        self.opening = asyncio.Semaphore(OPENING_AT_ONCE)
        # Files are read here, so a bad path or key fails before anything listens.
        self.host_key = load_or_create_host_key(self.config.ssh.host_key)
        self.fingerprint = self.host_key.get_fingerprint()
        self.sessions: set[SshSession] = set()
        self.connections: set[SshConnection] = set()
        self.task_factory: Any = None
        self.closing = False
        self._per_address: Counter[str] = Counter()
        # Connections still logging in have a budget of their own: they never take a player's place.
        self.waiting: HelloQueue[SshConnection] = HelloQueue(self.config.ssh.max_waiting_logins,
                                                             self.config.ssh.max_waiting_logins_per_address)
        self.starting: set[SshConnection] = set()  # logins past their key exchange with no first screen yet
        self._listener: asyncssh.SSHAcceptor | None = None
        self._login_seconds = 0.0  # how long a login takes to its first screen, lately (a moving average)
        self.sharing = ScreenSharing(config.ssh.shared_screens)  # spectators' screens drawn once for many

    @property
    def port(self) -> int:
        assert self._listener is not None
        return int(self._listener.get_port())

    async def start(self) -> None:
        config = self.config
        self.task_factory = self.sharing.task_factory = asyncio.get_running_loop().get_task_factory()
        self._listener = await asyncssh.create_server(
            lambda: SshConnection(self), config.ssh_host or None, config.ssh_port or 0,
            reuse_port=config.reuse_port or None,
            server_host_keys=[self.host_key], server_version="ONO99",
            encoding=None, allow_pty=True, line_editor=False,  # raw bytes: Textual reads every key itself
            x11_forwarding=False, agent_forwarding=False, allow_scp=False,
            login_timeout=config.ssh.login_timeout, keepalive_interval=config.ssh.keepalive,
            keepalive_count_max=3, window=INPUT_WINDOW)
        self.access.ssh_hint = f"ssh -p {self.port} HOST"

    # --- limits ------------------------------------------------------------------------------------
    def admit(self, connection: SshConnection) -> str | None:
        """None if the connection may go on, else why not; an admitted one must be released."""
        config = self.config
        if self.closing:
            return ssh_words.admission("closing", connection.address)
        if len(self.connections) - len(self.waiting) >= config.ssh.max_sessions:
            return ssh_words.admission("full", connection.address)
        if self._per_address[connection.address] >= config.ssh.max_sessions_per_address:
            return ssh_words.admission("address", connection.address)
        making_room: SshConnection | None = None
        if len(self.waiting) >= self.waiting.total and self.waiting.busiest() <= 1:
            # As many addresses logging in as there are places (a reconnect storm, or a flood of silent
            # connections): one that has not reached its authentication yet (silent, or still in its
            # key exchange) makes room; logins being authenticated are never dropped for a newcomer,
            # who is told when to come back instead.
            making_room = self.waiting.oldest(lambda waiting: not waiting.authenticating)
            if making_room is None:
                return self.busy_words(connection.address)
            self.waiting.remove(making_room)
        else:
            why, making_room = self.waiting.admit(connection.address)
            if why is not None:
                return why
        if making_room is not None and making_room.conn is not None:
            log.info("ssh %s: dropped while logging in, to make room", making_room.address)
            self.release(making_room)  # its place is free now, not once its connection is gone
            making_room.login_over()
            making_room.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, self.busy_words(making_room.address))
        self.connections.add(connection)
        connection.login_began()
        self.waiting.add(connection, connection.address)
        self._per_address[connection.address] += 1
        return None

    def may_start(self, connection: SshConnection) -> bool:
        """Whether a login whose key exchange is done may go on to its session now (and counts as
        starting until its first screen), or is one too many for the process to start at once."""
        if len(self.starting) >= self.config.ssh.max_starting_logins:
            return False
        self.starting.add(connection)
        return True

    def busy_words(self, address: str) -> str:
        """Why a login is refused while the front is busy, and in how many seconds to try again: about
        the time logins take to their first screen lately, or if longer, how long the oldest login
        starting now has been under way (in a storm none may have finished yet)."""
        now = asyncio.get_running_loop().time()
        oldest = max((now - c.login_started for c in self.starting), default=0.0)
        seconds = max(RETRY_AT_LEAST, math.ceil(self._login_seconds), math.ceil(oldest))
        return ssh_words.admission("busy", address, seconds=seconds)

    def note_login(self, seconds: float) -> None:
        self._login_seconds = seconds if not self._login_seconds else 0.8 * self._login_seconds + 0.2 * seconds

    def logged_in(self, connection: SshConnection) -> None:
        self.waiting.remove(connection)

    def release(self, connection: SshConnection) -> None:
        self.waiting.remove(connection)
        if connection in self.connections:
            self.connections.discard(connection)
            self._per_address[connection.address] -= 1
            if self._per_address[connection.address] <= 0:
                del self._per_address[connection.address]

    # --- identity ----------------------------------------------------------------------------------
    def read_shortcut(self, username: str) -> tuple[str | None, bool, bool]:
        """``watch-CODE`` and ``join-CODE``, or a bare user name shaped like an invite code:
        (code, watch, whether the user name may be a name instead; the lobby's answer tells)."""
        lowered = username.lower()
        for prefix, watch in SHORTCUT_PREFIXES:
            if lowered.startswith(prefix) and len(username) > len(prefix):
                return username[len(prefix):].strip().upper()[:16], watch, False
        wanted = username.strip().upper()
        if len(wanted) == CODE_LENGTH and set(wanted) <= CODE_ALPHABET:
            return wanted, False, True
        return None, False, False

    # --- shutdown ----------------------------------------------------------------------------------
    def stop_listening(self) -> None:
        self.closing = True
        if self._listener is not None:
            self._listener.close()

    async def close(self, reason: str | None = None, server_lost: bool = False) -> None:
        """End every session (each prints ``reason``, by default that the server is shutting down, in
        the session's language; ``server_lost``: that the game server stopped unexpectedly) and close
        every connection. Safe twice."""
        self.stop_listening()
        tasks = [s.task for s in self.sessions if s.task is not None]
        for session in list(self.sessions):
            env = session.terminal.env if session.terminal else {}
            table = session.app.model.table if session.app is not None else None
            seated = table is not None and table.you is not None
            session.end(ssh_words.server_lost(env, session.owner.fingerprint is not None, seated) if server_lost
                        else ssh_words.server_closed(env, reason))
        if tasks:
            await asyncio.wait(tasks, timeout=CLOSE_WAIT)
        await self.sharing.close(CLOSE_WAIT)
        for session in list(self.sessions):  # an app that did not end in time: its words all the same
            session.say_farewell(session.last_words, leave_screen=True)
        for connection in list(self.connections):
            if connection.conn is not None:
                connection.conn.close()
        if self._listener is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._listener.wait_closed(), CLOSE_WAIT)
            self._listener = None
        await close_front_links()
