"""A client's session (server/ono99_server/player_session.py) driven alone: no socket, no ``Server``, no lobby. It
is given a host with the server's settings and access policy, the narrow port it talks to the lobby through
(``SessionLobby``, here one that records each call and answers as the test scripts it), the time, and the random
bytes of a key's challenge; what it says is read off a recording link."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ono99_kernel.access import AccessPolicy
from ono99_kernel.protocol import PROTOCOL_VERSION, ProtocolError, encode, identity_proof_message
from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.wire.requests import Hello, Join, Ping, Prove, Request
from ono99_kernel.wire.server import Challenge
from ono99_server import ServerConfig
from ono99_server.members import Link, Member, token_hash
from ono99_server.moderation import Door, OperatorSession
from ono99_server.player_session import Session
from tests.test_session import START, RecordingLink, said

DIGEST = bytes(range(32))  # the certificate digest a key's proof is bound to (no certificate is made)
NONCE = b"\x5a" * 32


class ScriptedLobby:
    """The lobby's port, recording what the session asks of it; ``refuse_at_door`` and ``refuse``
    (by request type) make it answer with a refusal, ``operator`` lets a hello in as an operator's."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.names_shared = False
        self.calls: list[tuple[str, Any]] = []
        self.refuse_at_door: ProtocolError | None = None
        self.refuse: dict[type, ProtocolError] = {}
        self.operator = False
        self.names: dict[str, str] = {}

    async def look_up(self, name: str, identity: str | None) -> None:
        self.calls.append(("look_up", name))

    def name_of(self, identity: str) -> str | None:
        return self.names.get(identity)

    def at_the_door(self, door: Door, hello: Hello) -> Hello | None:
        self.calls.append(("at_the_door", (door.identity, hello.name)))
        if self.refuse_at_door is not None:
            raise self.refuse_at_door
        if self.operator:
            member = Member(hello.name, "", self.config, door.identity)
            member.connection = door.link
            door.operator = OperatorSession(door.identity or "", hello.name, member)
            door.let_in(member)
            return None
        return hello

    def hello(self, connection: Link, hello: Hello, identity: str | None, peer: str) -> Member:
        self.calls.append(("hello", (hello.name, hello.resume, identity)))
        member = Member(hello.name, token_hash(hello.resume or "new"), self.config, identity)
        member.connection = connection
        return member

    def welcomed(self, member: Member) -> None:
        self.calls.append(("welcomed", member.name))

    def handle(self, member: Member, request: Request) -> None:
        self.calls.append(("handle", (member.name, request.t)))
        refusal = self.refuse.get(type(request))
        if refusal is not None:
            raise refusal

    def operator_message(self, door: Door, request: Request) -> None:
        self.calls.append(("operator_message", request.t))

    def dropped(self, member: Member) -> None:
        self.calls.append(("dropped", member.name))

    def error_sent(self, connection: Session, code: str, params: Mapping[str, str | int] | None) -> None:
        self.calls.append(("error_sent", (code, connection.member is None)))

    def asked(self, kind: str) -> list[Any]:
        return [what for call, what in self.calls if call == kind]


class Host:
    """The server as a session sees it: settings, access policy, the lobby's port, the certificate's digest."""

    def __init__(self, **config: Any) -> None:
        self.config = ServerConfig(host="", port=None, **config)
        self.access = AccessPolicy.from_settings(self.config.ssh)
        self.session_lobby = ScriptedLobby(self.config)
        self.certificate_digest = DIGEST

    def players_full(self) -> bool:
        return False

    def trusts(self, credential: str) -> bool:
        return False

    def readdress(self, address: str, new: str) -> str | None:
        return None


def a_session(host: Host, **options: Any) -> tuple[Session, RecordingLink, list[int]]:
    """A session on ``host`` whose challenges take NONCE; the sizes it asked for are listed."""
    asked: list[int] = []

    def nonces(size: int) -> bytes:
        asked.append(size)
        return NONCE[:size]

    link = RecordingLink()
    session = Session(host, link, address="192.0.2.7", peer="192.0.2.7:5000", now=START, nonces=nonces, **options)
    return session, link, asked


async def test_a_key_is_challenged_with_the_given_nonce_and_its_proof_lets_the_player_in() -> None:
    """Tried: a hello with a key, then a proof signed over the certificate's digest and the nonce the
    session was given: the challenge carries exactly that nonce, and the lobby is asked at the door and
    then to welcome the hello under the key's fingerprint, once."""
    host = Host()
    lobby = host.session_lobby
    key = asyncssh.generate_private_key("ssh-ed25519")
    session, link, asked = a_session(host)
    session.receive(said(Hello(version=PROTOCOL_VERSION, name="Ada", key=key.export_public_key().decode())))
    (challenge,) = link.sent
    assert isinstance(challenge, Challenge) and challenge.nonce == NONCE and asked == [32]
    assert lobby.calls == []  # nothing reaches the lobby before the key is proven
    session.receive(said(Prove(signature=key.sign(identity_proof_message(DIGEST, NONCE), b"ssh-ed25519"))))
    identity = session.identity
    assert identity is not None and identity.startswith("SHA256:")
    assert lobby.asked("at_the_door") == [(identity, "Ada")]
    assert lobby.asked("hello") == [("Ada", None, identity)] and lobby.asked("welcomed") == ["Ada"]
    assert session.member is not None and session.member.identity == identity


async def test_a_proof_over_another_nonce_is_refused_and_nobody_is_let_in() -> None:
    """Tried: a proof signed over a nonce other than the one the session was given: refused
    (bad_signature, counted as a refusal before the welcome), the lobby never asked."""
    host = Host()
    key = asyncssh.generate_private_key("ssh-ed25519")
    session, link, _ = a_session(host)
    session.receive(said(Hello(version=PROTOCOL_VERSION, name="Ada", key=key.export_public_key().decode())))
    link.sent.clear()
    session.receive(said(Prove(signature=key.sign(identity_proof_message(DIGEST, b"\x00" * 32), b"ssh-ed25519"))))
    assert [m.code for m in link.errors()] == ["bad_signature"]
    assert host.session_lobby.calls == [("error_sent", ("bad_signature", True))]
    assert session.member is None and session.identity is None and not link.closed


async def test_a_hello_refused_at_the_door_is_answered_closed_and_never_reaches_the_lobby() -> None:
    """Tried: moderation at the door refuses the hello (a ban, fatal): the client is told why, with the
    hello as its ref, and the session closes; the lobby is never asked to welcome it."""
    host = Host()
    lobby = host.session_lobby
    lobby.refuse_at_door = ProtocolError("banned", "your key is banned from this server: spam", fatal=True,
                                         params={"why": "identity", "reason": "spam"})
    session, link, _ = a_session(host)
    session.receive(said(Hello(version=PROTOCOL_VERSION, name="Ada")))
    (error,) = link.errors()
    assert (error.code, error.ref, error.params["reason"]) == ("banned", "hello", "spam")
    assert link.closed and session.member is None
    assert lobby.asked("hello") == [] and lobby.asked("welcomed") == []


async def test_a_join_the_lobby_refuses_is_answered_and_the_session_goes_on() -> None:
    """Tried: a welcome player's join that the lobby refuses (no such table): the refusal is answered
    with the join as its ref, counted as an error of a member, and the next request still reaches the lobby."""
    host = Host()
    lobby = host.session_lobby
    lobby.refuse[Join] = ProtocolError("no_table", "there is no table 7", params={"why": "id"})
    session, link, _ = a_session(host)
    session.receive(said(Hello(version=PROTOCOL_VERSION, name="Ada")))
    session.receive(said(Join(table=7)))
    session.receive(said(Ping(n=1)))
    (error,) = link.errors()
    assert (error.code, error.ref) == ("no_table", "join") and not link.closed
    assert lobby.asked("handle") == [("Ada", "join"), ("Ada", "ping")]
    assert ("error_sent", ("no_table", False)) in lobby.calls


async def test_a_bad_message_is_refused_before_the_lobby_sees_it() -> None:
    """Tried: after the welcome, a join whose table is text, a message of no known type and a map
    without a type: each answered with what is wrong, none passed to the lobby, the session open."""
    host = Host()
    session, link, _ = a_session(host)
    session.receive(said(Hello(version=PROTOCOL_VERSION, name="Ada")))
    session.receive({"t": "join", "table": "one"})
    session.receive({"t": "teleport"})
    session.receive({"table": 1})
    assert [(m.code, m.ref) for m in link.errors()] == [("bad_field", "join"), ("unknown_type", "teleport"),
                                                       ("bad_message", None)]
    assert host.session_lobby.asked("handle") == [] and not link.closed


async def test_a_guest_resuming_is_welcomed_as_the_member_the_lobby_brings_back() -> None:
    """Tried: a guest's hello with the resume token of an earlier session: the lobby is given the token
    (no identity), the member it returns speaks through this session from then on, the adapter is told
    of the welcome once, and the member is reported dropped when the client goes away."""
    host = Host()
    lobby = host.session_lobby
    welcomes: list[str] = []
    session, _, _ = a_session(host, on_welcome=lambda: welcomes.append("welcome"))
    session.receive(said(Hello(version=PROTOCOL_VERSION, name="", resume="Ab3-resume-token")))
    assert lobby.asked("hello") == [("", "Ab3-resume-token", None)] and welcomes == ["welcome"]
    assert session.member is not None and session.member.token_hash == token_hash("Ab3-resume-token")
    session.receive(said(Ping(n=2)))
    assert lobby.asked("handle") == [("", "ping")]
    session.ended()
    assert lobby.asked("dropped") == [""]


async def test_with_shared_names_a_hello_waits_for_the_claims_then_goes_on_with_what_followed() -> None:
    """Tried: a hello then a ping in one read, names shared by several nodes: the hello is parked (the
    ping not read) until the adapter awaits the look-up of its name, then welcomed, then the ping handled."""
    host = Host()
    lobby = host.session_lobby
    lobby.names_shared = True
    session, _, _ = a_session(host)
    session.feed(encode(said(Hello(version=PROTOCOL_VERSION, name="Ada"))) + encode(said(Ping(n=3))))
    assert session.parked is not None and lobby.calls == []
    await session.look_up()
    assert [call for call, _ in lobby.calls] == ["look_up", "at_the_door", "hello", "welcomed", "handle"]


async def test_an_operators_session_takes_its_requests_to_moderation_not_the_lobby() -> None:
    """Tried: a hello the door lets in as an operator's session: the lobby does not welcome it, and
    what it sends next goes to the operators' commands."""
    host = Host()
    lobby = host.session_lobby
    lobby.operator = True
    session, _, _ = a_session(host)
    session.receive(said(Hello(version=PROTOCOL_VERSION, name="Root", admin=True)))
    session.receive(said(Ping(n=4)))
    assert lobby.asked("hello") == [] and lobby.asked("operator_message") == ["ping"]
    assert lobby.asked("handle") == []
