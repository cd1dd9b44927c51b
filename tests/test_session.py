"""A client's session with the server (server/ono99_server/player_session.py) without sockets: fed the maps and bytes a
client sends, with the time given by the test, it says hello, challenges a key, applies the access
policy, limits the rate and dispatches to the lobby; what it says is read off a recording link."""

from __future__ import annotations

from typing import Any

import pytest

from ono99_kernel.fingerprints import fingerprint_digest
from ono99_kernel.protocol import HEADER, MAX_FRAME, PROTOCOL_VERSION, decode_payload, encode, identity_proof_message
from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.ssh_settings import SshSettings
from ono99_kernel.wire.requests import Hello, Ping, Prove, Request
from ono99_kernel.wire.server import Challenge, ErrorMessage, ServerMessage, Welcome, decode_server_message
from ono99_server import Server, ServerConfig
from ono99_server.player_session import MAX_STRIKES, Session

START = 1000.0  # the time the client connected, on the test's clock


class RecordingLink:
    """A session's link that keeps what is sent, decoded as a client reads it."""

    def __init__(self) -> None:
        self.sent: list[ServerMessage] = []
        self.closed = False
        self.close_reason = ""

    def send(self, message: ServerMessage) -> None:
        self.send_frame(encode(message.to_wire()))

    def send_frame(self, frame: bytes) -> None:
        if not self.closed:
            self.sent.append(decode_server_message(decode_payload(frame[HEADER.size:])))

    def close(self, reason: str) -> None:
        self.closed, self.close_reason = True, reason

    def kinds(self) -> list[str]:
        return [message.t for message in self.sent]

    def errors(self) -> list[ErrorMessage]:
        """What was sent, each an error (else the test fails)."""
        assert all(isinstance(message, ErrorMessage) for message in self.sent), self.kinds()
        return [message for message in self.sent if isinstance(message, ErrorMessage)]


def a_server(**config: Any) -> Server:
    server = Server(ServerConfig(host="", port=None, **config))
    server.load_certificate()  # what a key's proof is bound to
    return server


def a_session(server: Server, **options: Any) -> tuple[Session, RecordingLink]:
    link = RecordingLink()
    return Session(server, link, address="192.0.2.7", peer="192.0.2.7:5000", now=START, **options), link


def said(request: Request) -> dict[str, Any]:
    """A request as the session receives it: the map of its frame."""
    return decode_payload(encode(request.to_wire())[HEADER.size:])


async def test_a_hello_is_welcomed_with_the_lobby_in_order() -> None:
    session, link = a_session(a_server())
    session.receive(said(Hello(version=PROTOCOL_VERSION, name="Ada")))
    assert link.kinds() == ["welcome", "chat_history", "tables", "online", "queue"]
    assert session.member is not None and session.member.name == "Ada" and session.member.connection is link


async def test_before_the_hello_a_request_is_refused_and_the_session_goes_on() -> None:
    session, link = a_session(a_server())
    session.receive(said(Ping(n=1)))
    session.receive({"t": "join", "table": "one"})  # not even a valid request: its fault is said first
    assert [m.code for m in link.errors()] == ["hello_first", "bad_field"]
    assert not link.closed and session.member is None


async def test_a_wrong_version_closes_the_session() -> None:
    session, link = a_session(a_server())
    session.receive(said(Hello(version=PROTOCOL_VERSION + 1, name="Ada")))
    (error,) = link.errors()
    assert error.code == "version_mismatch" and error.ref == "hello"
    assert link.closed and session.member is None


async def test_a_flood_is_answered_then_closed() -> None:
    """Tried: a burst of 3 allowed, then messages with no time passing: each dropped one is answered
    (rate_limited, naming it), and the one after MAX_STRIKES refusals in a row closes the session."""
    session, link = a_session(a_server(messages_per_second=0.001, message_burst=3))
    session.receive(said(Hello(version=PROTOCOL_VERSION, name="Ada")))
    for n in range(2):
        session.receive(said(Ping(n=n)))
    assert link.kinds()[-2:] == ["pong", "pong"]
    link.sent.clear()
    for n in range(MAX_STRIKES):
        session.receive(said(Ping(n=n)))
    assert [(m.code, m.ref) for m in link.errors()] == [("rate_limited", "ping")] * MAX_STRIKES
    assert not link.closed
    session.receive(said(Ping(n=0)))
    assert link.closed and link.close_reason == "too many messages"


async def test_a_key_is_challenged_and_its_proof_makes_the_identity() -> None:
    server = a_server()
    key = asyncssh.generate_private_key("ssh-ed25519")
    line = key.export_public_key().decode().strip()
    session, link = a_session(server)
    session.receive(said(Hello(version=PROTOCOL_VERSION, name="Ada", key=line)))
    (challenge,) = link.sent
    assert isinstance(challenge, Challenge) and len(challenge.nonce) == 32
    link.sent.clear()
    session.receive(said(Prove(signature=b"\x00" * 40)))  # no proof: refused, and the challenge is spent
    session.receive(said(Prove(signature=b"\x00" * 40)))
    assert [m.code for m in link.errors()] == ["bad_signature", "no_challenge"]
    link.sent.clear()
    session.receive(said(Hello(version=PROTOCOL_VERSION, name="Ada", key=line)))
    challenge = link.sent[0]
    assert isinstance(challenge, Challenge)
    signed = identity_proof_message(fingerprint_digest(server.fingerprint), challenge.nonce)
    session.receive(said(Prove(signature=key.sign(signed, b"ssh-ed25519"))))
    welcome = link.sent[1]
    assert isinstance(welcome, Welcome) and welcome.identity is not None and welcome.identity == session.identity
    assert welcome.identity.startswith("SHA256:")


async def test_a_hello_the_access_policy_refuses_waits_for_the_adapter_to_answer() -> None:
    """The session keeps the refusal (the adapter pauses before a wrong password is answered), then
    answers it and closes; nothing else is read meanwhile."""
    session, link = a_session(a_server(ssh=SshSettings(auth="password", password="open sesame")))
    session.feed(encode(said(Hello(version=PROTOCOL_VERSION, name="Ada", password="guess"))) + encode({"t": "ping"}))
    assert session.refusal is not None and link.sent == [] and not link.closed
    session.refuse()
    (error,) = link.errors()
    assert error.code == "access_denied" and error.ref == "hello" and link.closed


async def test_the_local_game_is_let_in_at_the_door() -> None:
    session, link = a_session(a_server(ssh=SshSettings(auth="password", password="open sesame")),
                              admitted_at_the_door=True)
    session.receive(said(Hello(version=PROTOCOL_VERSION, name="Ada")))
    assert link.kinds()[0] == "welcome"


async def test_silence_closes_before_the_hello_and_after_the_idle_timeout() -> None:
    server = a_server(hello_timeout=5.0, idle_timeout=60.0)
    session, link = a_session(server)
    assert session.patience(START + 2.0) == 3.0
    assert not session.silent(START + 5.0)
    assert link.closed and link.close_reason == "no hello in time"
    session, link = a_session(server)
    session.receive(said(Hello(version=PROTOCOL_VERSION, name="Bo")))
    assert session.patience(START + 4.0) == 60.0  # after the welcome: the idle timeout, from each read
    assert not session.silent(START + 64.0)
    assert link.close_reason == "idle for too long"


async def test_a_framing_fault_closes_the_session() -> None:
    session, link = a_session(a_server())
    session.feed(HEADER.pack(MAX_FRAME + 1))
    (error,) = link.errors()
    assert error.code == "frame_too_large" and link.closed


@pytest.mark.parametrize("trusted", [True, False])
async def test_a_front_speaks_for_its_player_only_with_a_trusted_credential(trusted: bool) -> None:
    credential = "Vq3dK0sXh1YfWm8PzR2tLc9uNb4eJa7G"
    server = a_server(front_credentials=(credential,) if trusted else ())
    session, link = a_session(server)
    identity = "SHA256:" + "B" * 43
    session.receive(said(Hello(version=PROTOCOL_VERSION, name="Kim", front={
        "credential": credential, "address": "198.51.100.7", "identity": identity})))
    if trusted:
        assert link.kinds()[0] == "welcome" and session.identity == identity and session.address == "198.51.100.7"
    else:
        (error,) = link.errors()
        assert error.code == "not_trusted" and link.closed and session.address == "192.0.2.7"
