"""The player's own key: who ``ono99 connect`` is on every server.

An ed25519 key, created on first use in the data directory (``--data-dir``, else ``$ONO99_DATA_DIR``,
else the user's data directory, e.g. ``~/.local/share/ono99``) as ``id_ed25519``, an OpenSSH private
key file (mode 0600). The same file works with ``ssh -i``, and is then the same player over SSH.
Servers know the player by the key's SHA256 fingerprint; the client proves it holds the key by
signing the server's challenge (docs/protocol.md, section 3).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from .protocol import MAX_NAME, identity_proof_message

if TYPE_CHECKING:
    import asyncssh

KEY_FILE = "id_ed25519"
NAME_FILE = "name"  # the name last asked for with --name
DATA_DIR_VARIABLE = "ONO99_DATA_DIR"


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """Where the player's key lives: ``override``, else ``$ONO99_DATA_DIR``, else the user data directory."""
    if override:
        return Path(override).expanduser()
    if os.environ.get(DATA_DIR_VARIABLE):
        return Path(os.environ[DATA_DIR_VARIABLE]).expanduser()
    from platformdirs import user_data_path

    return user_data_path("ono99", appauthor=False)


class Identity:
    """A private key that signs the server's challenges."""

    def __init__(self, key: asyncssh.SSHKey, path: Path | None = None) -> None:
        self.key = key
        self.path = path

    @classmethod
    def load_or_create(cls, directory: Path) -> Identity:
        """The key in ``directory``, created there first if it has none."""
        from ono99_kernel.ssh_library import asyncssh

        path = directory / KEY_FILE
        if not path.exists():
            key = asyncssh.generate_private_key("ssh-ed25519", comment="ono99")
            directory.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(FileExistsError):  # another client created it meanwhile: use that one
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as handle:
                    handle.write(key.export_private_key())
                (directory / f"{KEY_FILE}.pub").write_bytes(key.export_public_key())
        return cls(asyncssh.read_private_key(str(path)), path)

    @property
    def public_key(self) -> str:
        """The OpenSSH public key line sent in ``hello.key``."""
        return bytes(self.key.export_public_key()).decode().strip()

    @property
    def fingerprint(self) -> str:
        return str(self.key.get_fingerprint("sha256"))

    def prove(self, server_key: bytes, nonce: bytes) -> bytes:
        """The SSH signature answering a challenge's nonce, bound to the server certificate's key
        digest as this client saw it (docs/protocol.md section 3a)."""
        return bytes(self.key.sign(identity_proof_message(server_key, nonce), self.key.sig_algorithms[0]))


def remembered_name(directory: Path) -> str | None:
    """The name last asked for from this data directory, if any."""
    try:
        name = (directory / NAME_FILE).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return name[:MAX_NAME] or None


def remember_name(directory: Path, name: str) -> None:
    with contextlib.suppress(OSError):
        directory.mkdir(parents=True, exist_ok=True)
        (directory / NAME_FILE).write_text(name + "\n", encoding="utf-8")
