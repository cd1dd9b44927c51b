"""Who may come in: one access policy for every way into the server (TCP and SSH alike).

The policy is loaded once, when the server starts, and every listener asks the same question:
``decide(fingerprint, password, address)``, where ``fingerprint`` is the OpenSSH SHA256
fingerprint of a key the client proved it holds (or None), ``password`` what the client offered
(or None) and ``address`` where it connects from. The answer is None (come in) or the reason for
the refusal, written for the person refused.

Modes (``SshSettings.auth``, named after the SSH front that had them first):

- ``any-key``: open. Anyone comes in; a key, where one is proven, is the player's identity.
- ``authorized-keys``: only the keys listed in an OpenSSH ``authorized_keys`` file (its ``from=``
  options apply). A client without a listed key is told how to get in: the fingerprint of its key
  to send to the host.
- ``password``: anyone who gives the shared password. Wrong passwords are counted by address and
  in all (``ono99_kernel/throttle.py``): an address that failed too often, or any address with a recent
  failure while the whole server takes no more, is refused at once without its password being
  checked, and told how long to wait. Each policy object counts for itself: the game server's TCP
  listener and each SSH front process keep their own counts.
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from .refusal import Refusal
from .ssh_settings import SshSettings
from .throttle import FailureThrottle, Wait

MODES = ("any-key", "authorized-keys", "password")
FAILED_PASSWORD_DELAY = 1.0  # seconds a refusal waits for its answer (one the throttle made goes at once)
THROTTLED = ("locked", "busy")  # the whys of password attempts refused unchecked (throttle.Wait.why)
KEY_HELP = "the one line of ~/.ssh/id_ed25519.pub, or of id_ed25519.pub in ono99's data directory"

if TYPE_CHECKING:  # loaded where keys are read: a server in another mode starts without it (0.2 s of CPU)
    import asyncssh


class ListedKey:
    """One line of an authorized_keys file: its key, and the line itself for its options."""

    __slots__ = ("entry", "key")

    def __init__(self, key: asyncssh.SSHKey, entry: asyncssh.SSHAuthorizedKeys) -> None:
        self.key = key
        self.entry = entry


def read_listed_keys(path: Path) -> dict[str, ListedKey]:
    """The keys of an authorized_keys file by fingerprint. Raises ``OSError`` if the file cannot be
    read, ``ValueError`` for a line that is not an authorized key."""
    from ono99_kernel.ssh_library import asyncssh

    keys: dict[str, ListedKey] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            entry = asyncssh.import_authorized_keys(line)
        except (asyncssh.KeyImportError, ValueError) as exc:
            raise ValueError(f"{path}, line {number}: not an authorized key ({exc})") from None
        key = _key_of(line)
        if key is None:  # a cert-authority line: it signs keys, it is not a player's key
            continue
        keys[key.get_fingerprint()] = ListedKey(key, entry)
    if not keys:
        raise ValueError(f"{path} lists no keys")
    return keys


def _key_of(line: str) -> asyncssh.SSHKey | None:
    """The public key on an authorized_keys line, after any options (which may hold spaces), with the
    line's comment (who it is)."""
    from ono99_kernel.ssh_library import asyncssh

    words = line.split()
    for start in range(len(words)):
        if start and "cert-authority" in " ".join(words[:start]):
            return None
        try:
            key = asyncssh.import_public_key(" ".join(words[start:start + 2]))
        except (asyncssh.KeyImportError, ValueError):
            continue
        key.set_comment(" ".join(words[start + 2:]) or None)
        return key
    return None


class AccessPolicy:
    def __init__(self, mode: str = "any-key", *, password: str | None = None,
                 authorized_keys: Path | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown access mode {mode!r}; one of {', '.join(MODES)}")
        if mode == "password" and not password:
            raise ValueError("the password mode needs a password")
        if mode == "authorized-keys" and authorized_keys is None:
            raise ValueError("the authorized-keys mode needs an authorized_keys file")
        self.mode = mode
        self._password = password or ""
        self.authorized_keys = authorized_keys
        self._keys: dict[str, ListedKey] = read_listed_keys(authorized_keys) \
            if mode == "authorized-keys" and authorized_keys is not None else {}
        # How to come in with a key: `ono99 connect` (it proves the player's key), unless the server
        # has SSH, whose front then says `ssh -p ITS-PORT HOST` (HOST: the address the player used).
        self.ssh_hint = "ono99 connect"
        self.throttle = FailureThrottle(clock)  # wrong passwords, by address and in all

    @classmethod
    def from_settings(cls, ssh: SshSettings) -> AccessPolicy:
        """The policy of the SSH settings (the game server's, or a front's: the same value)."""
        return cls(ssh.auth, password=ssh.password, authorized_keys=ssh.authorized_keys)

    @property
    def open(self) -> bool:
        return self.mode == "any-key"

    def decide(self, fingerprint: str | None, password: str | None, address: str,
               key_line: str = "") -> Refusal | None:
        """None to let the client in, or why not (for the person refused; ``access_denied``'s params).
        ``key_line``: the key's OpenSSH public key line, which the host needs for authorized_keys."""
        if self.mode == "any-key":
            return None
        if self.mode == "password":
            if password is None:
                return Refusal("this server asks for a password: connect with --password", why="password")
            wait = self.throttle.wait(address)
            if wait is not None:  # not checked: a right password would not tell either
                return throttled(wait)
            if hmac.compare_digest(password.encode(), self._password.encode()):
                return None
            self.throttle.failed(address)
            return Refusal("wrong password", why="wrong_password")
        if fingerprint is None:
            return Refusal("this server lets in only the keys its host listed, and this connection proved no key: "
                           f"play with {self.ssh_hint}, and if your key is refused, send the host your public key "
                           f"line ({KEY_HELP}) for the server's authorized_keys file", why="no_key", ssh=self.ssh_hint)
        listed = self._keys.get(fingerprint)
        if listed is None:  # the host needs the whole line for authorized_keys: a fingerprint cannot be listed
            return Refusal(f"your key {fingerprint} is not on this server's list: send the server's host this "
                           f"line for its authorized_keys file, then connect again: {key_line}",
                           why="key_not_listed", fingerprint=fingerprint, key=key_line)
        if listed.entry.validate(listed.key, address, address) is None:
            return Refusal(f"your key {fingerprint} is listed, but not for connections from {address}",
                           why="key_not_from", fingerprint=fingerprint, address=address)
        return None


def refusal_pause(params: Mapping[str, str | int]) -> float:
    """Seconds to wait before answering a refusal with ``params``: none when the throttle refused unchecked."""
    return 0.0 if params.get("why") in THROTTLED else FAILED_PASSWORD_DELAY


def throttled(wait: Wait) -> Refusal:
    """The refusal of a password attempt the throttle did not let be checked."""
    if wait.why == "locked":
        return Refusal(f"too many wrong passwords from your address: wait {wait.seconds} s before trying again",
                       why="locked", seconds=wait.seconds)
    return Refusal(f"too many wrong passwords on this server just now: wait {wait.seconds} s before trying again",
                   why="busy", seconds=wait.seconds)
