"""The ``front`` field of a hello, sans I/O: a trusted front speaking for one of its players.

An SSH front (ono99_tui/front/) holds its players' SSH sessions and reaches the game server over
TCP, one connection per player, with the same protocol as any client. In that connection's hello
it asserts what its SSH login established: the player's key fingerprint (or none: a guest) and the
address the player connects from. The game server believes it only with a credential it trusts
(docs/protocol.md section 3b); a credential is generated at start for the server's own front
workers, and kept in a file for fronts on other machines.
"""

from __future__ import annotations

import ipaddress
import re
import secrets
from dataclasses import dataclass
from typing import Any

from .protocol import ProtocolError

MAX_CREDENTIAL = 128  # characters of a front credential
MAX_ADDRESS = 64  # characters of an address (IPv6 with a zone fits)
MAX_IDENTITY = 128  # characters of a fingerprint
# A fingerprint as OpenSSH prints it: SHA256: and the unpadded base64 of 32 bytes (43 characters).
FINGERPRINT = re.compile(r"SHA256:[A-Za-z0-9+/]{43}")
CREDENTIAL_ENV = "ONO99_FRONT_CREDENTIAL"  # how `ono99 serve` hands its local workers their credential


@dataclass(frozen=True, slots=True)
class FrontAssertion:
    credential: str
    address: str
    identity: str | None  # the key fingerprint the front verified at the SSH login; None: a guest

    def to_wire(self) -> dict[str, Any]:
        return {"credential": self.credential, "address": self.address, "identity": self.identity}


def new_credential() -> str:
    """A fresh front credential: 32 random bytes, URL-safe base64 (43 characters)."""
    return secrets.token_urlsafe(32)


def check_front(value: Any) -> FrontAssertion:
    """``hello.front`` validated (``bad_field`` otherwise); whether it is trusted is the server's call."""
    if not isinstance(value, dict):
        raise ProtocolError("bad_field", "hello.front must be a map")
    credential, address, identity = value.get("credential"), value.get("address"), value.get("identity")
    if not isinstance(credential, str) or not 1 <= len(credential) <= MAX_CREDENTIAL:
        raise ProtocolError("bad_field", f"hello.front.credential must be text of 1 to {MAX_CREDENTIAL} characters")
    if not isinstance(address, str) or len(address) > MAX_ADDRESS:
        raise ProtocolError("bad_field", "hello.front.address must be an IP address")
    try:
        address = str(ipaddress.ip_address(address))
    except ValueError:
        raise ProtocolError("bad_field", "hello.front.address must be an IP address") from None
    if identity is not None and (not isinstance(identity, str) or len(identity) > MAX_IDENTITY
                                 or not FINGERPRINT.fullmatch(identity)):
        raise ProtocolError("bad_field", "hello.front.identity must be nil or a key fingerprint "
                                         "(SHA256: and 43 base64 characters)")
    return FrontAssertion(credential, address, identity)
