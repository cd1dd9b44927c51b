"""Fingerprints of public keys as OpenSSH writes them: ``SHA256:`` and 43 unpadded base64 characters.

Sans-I/O (the LAN advertisement reads them from the network); ono99_kernel/tls.py takes them of
certificates.
"""

from __future__ import annotations

import base64
import binascii
import hashlib

from .core.words import N_

FINGERPRINT_PREFIX = "SHA256:"


class FingerprintError(ValueError):
    """Text that is not a fingerprint as ``SHA256:`` and 43 base64 characters: ``words`` says why in
    English, marked for the catalogs, with ``{text}`` and ``{prefix}`` (translated where it is shown)."""

    def __init__(self, text: str, words: str) -> None:
        super().__init__(words.format(text=repr(text), prefix=FINGERPRINT_PREFIX))
        self.text = text
        self.words = words


def fingerprint_of_public_key(spki_der: bytes) -> str:
    """``SHA256:`` and the unpadded base64 of the SHA-256 of a DER SubjectPublicKeyInfo."""
    digest = hashlib.sha256(spki_der).digest()
    return FINGERPRINT_PREFIX + base64.b64encode(digest).decode("ascii").rstrip("=")


def fingerprint_digest(fingerprint: str) -> bytes:
    """The 32 bytes a fingerprint writes out (what the identity proof signs)."""
    text = fingerprint.strip()
    if not text.startswith(FINGERPRINT_PREFIX):
        raise FingerprintError(fingerprint, N_("{text} is not a fingerprint: it must start with {prefix}"))
    body = text[len(FINGERPRINT_PREFIX):]
    try:
        digest = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        digest = b""
    if len(digest) != 32:
        raise FingerprintError(fingerprint, N_("{text} is not a fingerprint: {prefix} must be followed by 43 base64 "
                                               "characters"))
    return digest


def normal_fingerprint(text: str) -> str:
    """A fingerprint as typed (spaces around it, padding): its one written form; FingerprintError if it is none."""
    digest = fingerprint_digest(text)
    return FINGERPRINT_PREFIX + base64.b64encode(digest).decode("ascii").rstrip("=")


