"""A player's identity: the SHA256 fingerprint of a public key they proved they hold.

Over SSH the key is proven by the SSH login itself. Over TCP the client sends its public key in
``hello`` (an OpenSSH public key line), the server answers with a ``challenge`` holding a random
nonce, and the client signs ``identity_proof_message(server_key, nonce)`` (bound to the TLS certificate
it saw) with the key (an SSH signature blob,
as an SSH publickey login sends one) and sends it in ``prove``. Both ways give the same
fingerprint for the same key, as OpenSSH prints it (``SHA256:`` and unpadded base64).
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

from ono99_kernel.protocol import ProtocolError, identity_proof_message

if TYPE_CHECKING:
    import asyncssh

KEY_TYPES = frozenset({"ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
                       "ssh-rsa"})
SIGNATURE_TYPES = frozenset({b"ssh-ed25519", b"ecdsa-sha2-nistp256", b"ecdsa-sha2-nistp384",
                             b"ecdsa-sha2-nistp521", b"rsa-sha2-256", b"rsa-sha2-512"})  # no SHA-1 "ssh-rsa"


def parse_public_key(text: str) -> asyncssh.SSHKey:
    """The public key of an OpenSSH public key line ("ssh-ed25519 AAAA... comment"); ``bad_key`` if
    it is not one of a type the server takes."""
    from ono99_kernel.ssh_library import asyncssh

    kind = text.split(maxsplit=1)[0] if text.strip() else ""
    if kind not in KEY_TYPES:
        raise ProtocolError("bad_key", f"hello: 'key' must be an OpenSSH public key of type "
                                       f"{', '.join(sorted(KEY_TYPES))}",
                            params={"why": "type", "types": ", ".join(sorted(KEY_TYPES))})
    try:
        return asyncssh.import_public_key(text)
    except (asyncssh.KeyImportError, ValueError) as exc:
        raise ProtocolError("bad_key", f"hello: 'key' is not a valid public key ({exc})",
                            params={"why": "invalid"}) from None


def signature_type(signature: bytes) -> bytes:
    """The algorithm name at the start of an SSH signature blob (b"" if there is none)."""
    if len(signature) < 4:
        return b""
    (length,) = struct.unpack_from(">I", signature)
    return signature[4:4 + length] if 4 + length <= len(signature) else b""


def verify_proof(key: asyncssh.SSHKey, server_key: bytes, nonce: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is ``key``'s signature of the proof message of ``nonce`` for the server
    whose certificate key digest is ``server_key`` (this server's own)."""
    if signature_type(signature) not in SIGNATURE_TYPES:
        return False
    try:
        return bool(key.verify(identity_proof_message(server_key, nonce), signature))
    except Exception:  # a malformed blob: not a proof
        return False


def fingerprint(key: asyncssh.SSHKey) -> str:
    """The identity of a key: ``SHA256:`` and the unpadded base64 of its SHA-256, as OpenSSH prints it."""
    return str(key.get_fingerprint("sha256"))
