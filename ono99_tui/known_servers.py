"""Which servers a client trusts: their certificate fingerprints, pinned as OpenSSH pins host keys.

``ono99 connect`` keeps a ``known_servers`` file in its data directory, one line per server:
``HOST:PORT SHA256:…`` (``[v6]:PORT`` for IPv6). The first visit shows the fingerprint and asks; a
later visit whose certificate has another fingerprint is refused, with the one command that accepts
the new one (``--server-fingerprint``, after checking it with the host). A fingerprint given up front
(``--server-fingerprint``, a front's pin) must match, and is then remembered.
"""

from __future__ import annotations

import contextlib
import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from ono99_kernel.fingerprints import FingerprintError, normal_fingerprint

from .i18n import gettext as _

KNOWN_SERVERS_FILE = "known_servers"


def server_key(host: str, port: int) -> str:
    """How a server is named in the file: ``HOST:PORT``, ``[v6]:PORT``, the host lower-cased."""
    host = host.strip().lower()
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


FINGERPRINT_PLACEHOLDER = "FINGERPRINT"  # where the host's fingerprint goes in the command that accepts it


def data_dir_option(directory: Path | None) -> str:
    """`` --data-dir DIR`` for a command said to the player, when their key and known servers are not
    where a bare command looks (the command line named another directory); else nothing."""
    from ono99_kernel.identity import data_dir

    if directory is None or directory.resolve() == data_dir().resolve():
        return ""
    return f" --data-dir {shlex.quote(str(directory))}"


def how_to_accept(host: str, port: int, *, plain: bool = False, directory: Path | None = None,
                  command: str | None = None) -> str:
    """What to do about a changed certificate, as OpenSSH says it: the fingerprint comes from the host,
    never from the warning (whoever may be in between chose the certificate the warning saw), so the
    command to accept it holds a placeholder, not the fingerprint just shown. ``directory``: the data
    directory that knew the old fingerprint, named in the command unless it is the default one (else
    the command would pin the new one, and prove a key, elsewhere). ``command``: another command that
    accepts it (``ono99 admin``'s), placeholder and all."""
    if command is None:
        command = (f"ono99 connect {'--plain ' if plain else ''}{server_key(host, port)}"
                   f"{data_dir_option(directory)} --server-fingerprint {FINGERPRINT_PLACEHOLDER}")
    return _("Do not copy the fingerprint shown here. Ask the host which fingerprint their server prints "
             "(tls: certificate …), by a way you trust; if it is not the one you trusted before, accept it "
             "with: {command} (with {placeholder} replaced by the host's).").format(
        command=command, placeholder=FINGERPRINT_PLACEHOLDER)


def not_a_fingerprint(exc: FingerprintError) -> str:
    """Why a given fingerprint is none, in the player's language; the placeholder of the command a
    changed certificate names, left in, says what goes in its place."""
    words = _(exc.words).format(text=repr(exc.text), prefix="SHA256:")
    if exc.text.strip() == FINGERPRINT_PLACEHOLDER:
        words += "; " + _("put the fingerprint the host's server prints (tls: certificate …) in place of "
                          "{placeholder}").format(placeholder=FINGERPRINT_PLACEHOLDER)
    return words


class UntrustedServer(Exception):
    """The server's certificate is not one this client may trust (yet): nothing was sent to it."""

    def __init__(self, host: str, port: int, fingerprint: str) -> None:
        super().__init__(f"{server_key(host, port)} showed {fingerprint}")
        self.host = host
        self.port = port
        self.fingerprint = fingerprint


class UnknownServer(UntrustedServer):
    """A first visit: the fingerprint is not known yet; ask the player (``announced``: the fingerprint
    the server announced on the local network, which equals the one it showed)."""

    def __init__(self, host: str, port: int, fingerprint: str, announced: bool = False) -> None:
        super().__init__(host, port, fingerprint)
        self.announced = announced


class ServerKeyChanged(UntrustedServer):
    """The certificate is not the one pinned: ``expected`` is what was known (``given``: from a
    ``--server-fingerprint`` rather than the file; ``directory``: the data directory whose file knew it)."""

    def __init__(self, host: str, port: int, fingerprint: str, expected: str, given: bool = False,
                 directory: Path | None = None) -> None:
        super().__init__(host, port, fingerprint)
        self.expected = expected
        self.given = given
        self.directory = directory


class AnnouncementMismatch(UntrustedServer):
    """The certificate is not the one the server announced on the local network: someone may be in
    between, or announcing a server that is not theirs."""

    def __init__(self, host: str, port: int, fingerprint: str, announced: str) -> None:
        super().__init__(host, port, fingerprint)
        self.announced = announced


def untrusted_words(exc: ServerKeyChanged | AnnouncementMismatch, *, plain: bool = False) -> str:
    """A loud refusal: what was expected, what was shown, and the one command that accepts the new one
    (``plain``: ``ono99 connect --plain``'s). The app's and the plain mode's, the same words; its
    paragraphs are apart by a blank line."""
    server = server_key(exc.host, exc.port)
    if isinstance(exc, AnnouncementMismatch):
        return _("NOT CONNECTED: {server} shows the certificate {fingerprint}, but the server on your network "
                 "announced {announced}. Someone may be between you and the server. Nothing was sent.").format(
            server=server, fingerprint=exc.fingerprint, announced=exc.announced)
    if exc.given:
        return _("NOT CONNECTED: {server} shows the certificate {fingerprint}, not the {expected} you gave. "
                 "Nothing was sent.").format(server=server, fingerprint=exc.fingerprint, expected=exc.expected)
    return _("WARNING: THE SERVER'S CERTIFICATE HAS CHANGED. {server} used to show {expected} and now shows "
             "{fingerprint}. Someone may be between you and the server, or its host replaced the certificate. "
             "Nothing was sent.").format(server=server, expected=exc.expected, fingerprint=exc.fingerprint) + \
        "\n\n" + how_to_accept(exc.host, exc.port, plain=plain, directory=exc.directory)


class KnownServers:
    """The ``known_servers`` file: read at each check (another client may have added to it), written
    whole through a temporary file so that a crash never leaves half a file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def in_directory(cls, directory: Path) -> KnownServers:
        return cls(directory / KNOWN_SERVERS_FILE)

    def entries(self) -> dict[str, str]:
        """Server name → fingerprint; lines that do not parse are skipped (and kept on rewrite)."""
        known: dict[str, str] = {}
        for line in self._lines():
            parts = line.split()
            if len(parts) >= 2 and not line.startswith("#"):
                with contextlib.suppress(FingerprintError):
                    known[parts[0].lower()] = normal_fingerprint(parts[1])
        return known

    def get(self, host: str, port: int) -> str | None:
        return self.entries().get(server_key(host, port))

    def remember(self, host: str, port: int, fingerprint: str) -> None:
        """Pin ``fingerprint`` for the server, replacing what was known of it."""
        name = server_key(host, port)
        kept = [line for line in self._lines() if not (line.split() and line.split()[0].lower() == name)]
        kept.append(f"{name} {normal_fingerprint(fingerprint)}")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(self.path.name + f".{os.getpid()}.tmp")
        temporary.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
        os.replace(temporary, self.path)

    def _lines(self) -> list[str]:
        try:
            return [line.rstrip("\n") for line in self.path.read_text(encoding="utf-8").splitlines() if line.strip()]
        except (OSError, UnicodeDecodeError):
            return []


@dataclass(frozen=True, slots=True)
class ServerTrust:
    """How a client decides whether to go on with the server that answered.

    ``given``: a fingerprint the player or the host's configuration gave (``--server-fingerprint``,
    a front's pin): the server must show it. ``known``: the file of servers met before (None: remember
    nothing). ``announced``: the fingerprint the server announced on the local network, if it was
    picked from the list."""

    known: KnownServers | None = None
    given: str | None = None
    announced: str | None = None

    @classmethod
    def pinned(cls, fingerprint: str) -> ServerTrust:
        return cls(given=normal_fingerprint(fingerprint))

    def check(self, host: str, port: int, fingerprint: str) -> None:
        """Nothing if the server may be trusted (a given fingerprint that matches is remembered);
        else raises the ``UntrustedServer`` that says why."""
        if self.given is not None:
            if fingerprint != self.given:
                raise ServerKeyChanged(host, port, fingerprint, self.given, given=True)
            if self.known is not None and self.known.get(host, port) != fingerprint:
                self.known.remember(host, port, fingerprint)
            return
        if self.announced is not None and fingerprint != self.announced:
            raise AnnouncementMismatch(host, port, fingerprint, self.announced)
        if self.known is None:
            raise UnknownServer(host, port, fingerprint, announced=self.announced is not None)
        expected = self.known.get(host, port)
        if expected is None:
            raise UnknownServer(host, port, fingerprint, announced=self.announced is not None)
        if expected != fingerprint:
            raise ServerKeyChanged(host, port, fingerprint, expected, directory=self.known.path.parent)

    def accept(self, host: str, port: int, fingerprint: str) -> ServerTrust:
        """The player accepted a first visit's fingerprint: remembered (a later change is then the
        known server's certificate changing), or pinned for this run if nothing is remembered."""
        if self.known is not None:
            self.known.remember(host, port, fingerprint)
            return ServerTrust(known=self.known)
        return ServerTrust(given=normal_fingerprint(fingerprint))
