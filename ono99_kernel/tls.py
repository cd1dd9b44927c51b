"""TLS for the game protocol: the server's long-lived certificate, its fingerprint, and what a client pins.

The server keeps one key and a self-signed certificate beside its database (as it keeps its SSH host
key), made at its first start. Nobody checks that certificate against a certificate authority:
clients pin the server's **fingerprint** instead, as OpenSSH pins host keys (ono99_tui/known_servers.py).
The fingerprint is of the certificate's public key (its SubjectPublicKeyInfo), so a certificate renewed
with the same key keeps it: ``SHA256:`` and the unpadded base64 of the SHA-256 of that DER, written as
OpenSSH writes key fingerprints. The identity proof (docs/protocol.md section 3a) signs the same 32
bytes, so a proof made through a relay that shows its own certificate is refused by the real server.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .fingerprints import fingerprint_of_public_key

# asyncio's TLS layer reads into a buffer of SSLProtocol.max_size bytes, 256 KiB by default, kept per
# connection and allocated again for every read of a stream protocol: 250 MiB for 1,000 players, and
# a large allocation per message. One TLS record holds at most 16 KiB of data, and a frame of this
# protocol at most 64 KiB (read in several records at no cost), so 16 KiB loses nothing.
TLS_READ_BUFFER = 16 * 1024
CERT_FILE = "tls_cert.pem"
KEY_FILE = "tls_key.pem"
CERTIFICATE_YEARS = 100  # pinned, never checked against a clock: it must simply not expire


def certificate_fingerprint(certificate_der: bytes) -> str:
    """The fingerprint of a DER certificate's public key."""
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    certificate = x509.load_der_x509_certificate(certificate_der)
    spki = certificate.public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
    return fingerprint_of_public_key(spki)


@dataclass(frozen=True, slots=True)
class ServerCertificate:
    """A server's certificate and key files, and the fingerprint clients pin."""

    cert_path: Path
    key_path: Path
    fingerprint: str

    def context(self) -> ssl.SSLContext:
        """A server context: TLS 1.3 only, this certificate."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_3
        context.load_cert_chain(self.cert_path, self.key_path)
        return context


def create_certificate(cert_path: Path, key_path: Path, common_name: str = "ONO 99 server") -> None:
    """A new ECDSA P-256 key (mode 0600) and a self-signed certificate for it. P-256 because every TLS
    stack takes it, browsers included (they refuse Ed25519 certificates)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name[:64] or "ONO 99 server")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(days=1))
                   .not_valid_after(now + datetime.timedelta(days=365 * CERTIFICATE_YEARS))
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                   .sign(key, hashes.SHA256()))
    key_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    cert_path.write_bytes(certificate.public_bytes(Encoding.PEM))


def load_certificate(cert_path: Path, key_path: Path) -> ServerCertificate:
    """Certificate and key files that exist: checked by loading them into a context. ValueError says
    what is wrong with them."""
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    try:
        der = x509.load_pem_x509_certificate(cert_path.read_bytes()).public_bytes(Encoding.DER)
    except OSError as exc:
        raise ValueError(f"cannot read the TLS certificate {cert_path}: {exc.strerror}") from None
    except ValueError as exc:
        raise ValueError(f"{cert_path} is not a PEM certificate ({exc})") from None
    certificate = ServerCertificate(cert_path, key_path, certificate_fingerprint(der))
    try:
        certificate.context()
    except (OSError, ssl.SSLError) as exc:
        raise ValueError(f"the TLS key {key_path} cannot be used with {cert_path} ({exc})") from None
    return certificate


def load_or_create_certificate(cert_path: Path, key_path: Path) -> ServerCertificate:
    """The server's certificate, made at the first start (both files missing) and kept."""
    if not cert_path.exists() and not key_path.exists():
        with contextlib.suppress(FileExistsError):  # another process made it meanwhile: use that one
            create_certificate(cert_path, key_path)
    return load_certificate(cert_path, key_path)


def ephemeral_certificate() -> ServerCertificate:
    """A certificate for a server that keeps nothing (tests, a server without a database): made in a
    private temporary directory that lives as long as the process."""
    directory = Path(tempfile.mkdtemp(prefix="ono99-tls-"))
    cert_path, key_path = directory / CERT_FILE, directory / KEY_FILE
    create_certificate(cert_path, key_path)
    return load_certificate(cert_path, key_path)


def lean_read_buffers() -> None:
    """Make asyncio's TLS connections in this process read through buffers of ``TLS_READ_BUFFER``
    bytes (a class attribute of asyncio's TLS protocol, which offers no other way to set it)."""
    from asyncio import sslproto

    sslproto.SSLProtocol.max_size = TLS_READ_BUFFER


def widen_read_buffer(transport: object, size: int) -> None:
    """Let one TLS connection read through a buffer of ``size`` bytes: a connection reads one buffer from its
    socket per turn of the event loop, and a front's link, carrying all its players, read at
    ``TLS_READ_BUFFER`` falls behind the game server whenever the front's loop turns slowly."""
    protocol = getattr(transport, "_ssl_protocol", None)  # asyncio's TLS transport and its protocol
    if protocol is not None:
        protocol.max_size = size


def client_context() -> ssl.SSLContext:
    """A client context: TLS 1.3 only. No certificate authority is consulted: the caller checks the
    server's fingerprint against its pin (``peer_fingerprint``) before it sends anything."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def peer_fingerprint(ssl_object: ssl.SSLObject | ssl.SSLSocket | None) -> str:
    """The fingerprint of the certificate the other end showed in this TLS session."""
    der = ssl_object.getpeercert(binary_form=True) if ssl_object is not None else None
    if not der:
        raise ssl.SSLError("the server showed no certificate")
    return certificate_fingerprint(der)
