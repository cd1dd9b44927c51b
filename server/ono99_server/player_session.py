"""One client's session with the server, without I/O: fed what the client sends (bytes, or messages already
decoded), it limits their rate, validates each into a typed request, runs the hello (the challenge and proof of a
key, a trusted front's word for its player), applies the access policy and dispatches the rest to the lobby through
the narrow port it is given (``SessionLobby``). What it says goes out through its ``Link``, whatever carries the
bytes: the asyncio TCP/TLS connection (server/ono99_server/connection.py), or the local game's in-process link
(server/ono99_server/local.py). It reads no clock and draws no randomness of its own: its deadlines are on the clock
the adapter gives (``now``), a key's challenge takes its bytes from the ``nonces`` it is given. It waits for nothing
itself, but for the claims on a hello's name in a database several nodes share, which the adapter awaits
(``parked``, ``look_up``)."""

from __future__ import annotations

import dataclasses
import logging
import secrets
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ono99_kernel.fronts import check_front
from ono99_kernel.protocol import NONCE_BYTES, FrameDecoder, ProtocolError, clean_text, encode
from ono99_kernel.refusal import params_of
from ono99_kernel.wire.link import FRONT_LINK, FrontLink, Linked
from ono99_kernel.wire.requests import Hello, Prove, claimed_kind, decode_request
from ono99_kernel.wire.server import Challenge, ErrorMessage, ServerMessage

from .key_proof import fingerprint, parse_public_key, verify_proof
from .members import Link, Member
from .rates import TokenBucket

if TYPE_CHECKING:
    from ono99_kernel.access import AccessPolicy
    from ono99_kernel.wire.requests import Request

    from .config import ServerConfig
    from .moderation import Door, OperatorSession

log = logging.getLogger("ono99.connection")
MAX_STRIKES = 20  # rate-limit refusals in a row before a flooding client is dropped


class SessionLobby(Protocol):
    """The narrow port a session talks to the lobby through (server/ono99_server/game_server.py's ``LobbyDoor`` over
    server/ono99_server/lobby_state.py's ``Lobby``): the names keys own, moderation at the door, the welcome, a welcome
    member's requests, an operator's, the end, and the errors counted."""

    @property
    def names_shared(self) -> bool:
        """Several nodes claim names in one database: a hello's name is read from it first (``look_up``)."""

    async def look_up(self, name: str, identity: str | None) -> None: ...

    def name_of(self, identity: str) -> str | None: ...

    def at_the_door(self, door: Door, hello: Hello) -> Hello | None:
        """Bans, an operator's session and the names deny list: the hello the lobby should take, or None
        (an operator's session, let in here); a refusal raises ``ProtocolError``."""

    def hello(self, connection: Link, hello: Hello, identity: str | None, peer: str) -> Member: ...

    def welcomed(self, member: Member) -> None: ...

    def handle(self, member: Member, request: Request) -> None: ...

    def operator_message(self, door: Door, request: Request) -> None: ...

    def dropped(self, member: Member) -> None: ...

    def error_sent(self, connection: Session, code: str, params: Mapping[str, str | int] | None) -> None: ...


class SessionHost(Protocol):
    """What a session asks of the server it belongs to (server/ono99_server/game_server.py's ``Server``): its
    settings and access policy, the lobby's port, the certificate a key's proof is bound to, and its connection
    counts."""

    config: ServerConfig
    access: AccessPolicy

    @property
    def session_lobby(self) -> SessionLobby: ...

    @property
    def certificate_digest(self) -> bytes: ...

    def players_full(self) -> bool: ...

    def trusts(self, credential: str) -> bool: ...

    def readdress(self, address: str, new: str) -> str | None: ...


class Session:
    # The identity (key fingerprint) this session has proven: by a TCP client's answer to the
    # challenge, or asserted by a trusted front for its SSH login (section 3b). None: a guest so far.
    identity: str | None = None
    key_line = ""  # that key's OpenSSH public key line
    front = False  # a trusted front's session for one of its players (docs/protocol.md section 3b)
    operator: OperatorSession | None = None  # an operator's own session (`ono99 admin`), not a player
    client_name = ""  # its hello's ``client`` (a front's names the worker: metrics)
    linked: FrontLink | None = None  # a trusted front's link for all its players (section 3c): see ``may_link``

    def __init__(self, host: SessionHost, link: Link, *, address: str, peer: str, now: float,
                 admitted_at_the_door: bool = False, on_welcome: Callable[[], None] | None = None,
                 nonces: Callable[[int], bytes] = secrets.token_bytes, may_link: bool = False,
                 channel: bool = False) -> None:
        """``now``: the time the client connected, on the clock the adapter passes to ``patience``
        and ``silent`` (the session reads no clock itself). ``admitted_at_the_door``: the access policy
        was applied before the hello (the local game); a TCP hello is checked here. ``on_welcome``: told
        once the hello is accepted. ``nonces``: the random bytes of a key's challenge, of the size asked.
        ``may_link``: a TCP connection, which a trusted front may make its link (``front_link``: then
        ``linked`` is set and the adapter reads the link's channels from there on). ``channel``: the session
        of one channel of such a link, whose hello must be a front's for its player."""
        self.host = host
        self.lobby = host.session_lobby
        self.nonces = nonces
        self.link = link
        self.address = address  # where the player is (an SSH player's, once their front says so)
        self.peer = peer  # for the logs
        config = host.config
        # From connecting to a successful hello, the TLS handshake included: fixed, chatter without a
        # hello does not extend it.
        self.hello_by = now + config.hello_timeout
        self.admitted_at_the_door = admitted_at_the_door
        self.on_welcome = on_welcome
        self.member: Member | None = None
        self.bucket = TokenBucket(config.messages_per_second, config.message_burst)
        self.strikes = 0
        self.refusal: ProtocolError | None = None  # a hello the access policy refused: see ``refuse``
        self._challenge: tuple[Hello, Any, bytes] | None = None  # (hello, its key, the nonce sent)
        self.parked: Hello | None = None  # a hello waiting for the claims on its name (``look_up``)
        self._looked_up: Hello | None = None
        self._decoder = FrameDecoder()
        self.may_link = may_link
        self.channel = channel

    @property
    def closed(self) -> bool:
        return self.link.closed

    def send(self, message: ServerMessage) -> None:
        self.link.send(message)

    def error(self, code: str, reason: str, ref: str | None = None,
              params: Mapping[str, str | int] | None = None) -> None:
        self.lobby.error_sent(self, code, params)  # refusals and errors, by code
        self.send(ErrorMessage(code=code, reason=reason, ref=ref, params=dict(params or {})))

    def close(self, reason: str) -> None:
        self.link.close(reason)

    # --- what the adapter tells the session ------------------------------------------------------
    def feed(self, data: bytes) -> None:
        """Bytes from the client: each whole message is received in turn, until the session closes
        or a hello is refused (what follows is not read). A framing fault closes the session: the
        stream cannot be trusted any more."""
        try:
            for message in self._decoder.feed(data):
                self.receive(message)
                if self.closed or self.refusal is not None or self.parked is not None or self.linked is not None:
                    return  # (a parked hello's next frames stay in the decoder until ``look_up``; a link's
                    # are the link's, ``rest_of_stream``)
        except ProtocolError as exc:
            log.info("%s: %s: %s, closing", self.peer, exc.code, exc.reason)
            self.error(exc.code, exc.reason, params=exc.params)
            self.close(exc.reason)

    def receive(self, message: Mapping[str, Any]) -> None:
        """One message from the client, as the frame decoder yields it."""
        kind = claimed_kind(message)
        ref = kind[:32] if kind is not None else None  # "" is a text t: nil only without one
        if not self.bucket.take():
            self.strikes += 1
            if self.strikes > MAX_STRIKES:
                log.warning("%s: flooding, closing", self.peer)
                self.close("too many messages")
            else:  # every dropped message is answered: a client never waits for a reply that will not come
                self.error("rate_limited", "too many messages; slow down (this one was not carried out)", ref)
            return
        self.strikes = 0
        try:
            if kind == FRONT_LINK and self.may_link and self.member is None:
                self._link(FrontLink.from_wire(message))
                return
            request = decode_request(message)
            if self.member is None:
                if isinstance(request, Hello):
                    self._hello(request)
                elif isinstance(request, Prove):
                    self._prove(request)
                else:
                    raise ProtocolError("hello_first", "the first message must be hello")
                return
            if self.operator is not None:  # an operator's session takes admin commands only
                self.lobby.operator_message(self, request)
                return
            self.lobby.handle(self.member, request)
        except ProtocolError as exc:
            self._refused(exc, ref)
        except Exception:
            log.exception("%s: error handling %s", self.peer, ref)
            self.error("server_error", "the server failed to handle that message; it was not applied", ref)

    def _refused(self, exc: ProtocolError, ref: str | None) -> None:
        log.info("%s: %s: %s", self.peer, exc.code, clean_text(exc.reason))
        self.error(exc.code, exc.reason, ref, exc.params)
        if exc.fatal:
            self.close(exc.reason)

    async def look_up(self) -> None:
        """The ``parked`` hello: read the claims on its name from the database several nodes share
        (``SessionLobby.look_up``), then take it on, and the frames that came after it."""
        hello = self.parked
        assert hello is not None
        self.parked = None
        try:
            await self.lobby.look_up(hello.name, self.identity)
        except Exception as exc:  # the names as this node knew them decide, as without a shared database
            log.warning("%s: the claims on a name could not be read (%s)", self.peer, repr(exc))
        self._looked_up = hello
        try:
            self._enter(hello)
        except ProtocolError as exc:
            self._refused(exc, "hello")
        except Exception:
            log.exception("%s: error handling hello", self.peer)
            self.error("server_error", "the server failed to handle that message; it was not applied", "hello")
        if not self.closed and self.refusal is None and self.parked is None:
            self.feed(b"")

    def patience(self, now: float) -> float:
        """Seconds from ``now`` the client may stay silent: until the hello's deadline before the
        welcome, the idle timeout after."""
        if self.member is None:
            return max(0.0, self.hello_by - now)
        return self.host.config.idle_timeout

    def silent(self, now: float) -> bool:
        """The client said nothing for ``patience``: True if the session waits on (its screen follows a
        game that moves), else it is closed."""
        if self._watching_a_game(now):
            return True
        self.close("no hello in time" if self.member is None else "idle for too long")
        return False

    def refuse(self) -> None:
        """Answer the hello the access policy refused (``refusal``), and close. The adapter waits
        ``ono99_kernel.access.refusal_pause`` first: a wrong password is not answered at once."""
        refusal = self.refusal
        assert refusal is not None
        self.error(refusal.code, refusal.reason, "hello", refusal.params)
        self.close(refusal.reason)

    def ended(self) -> None:
        """The client went away: its member, if still this session's, is away from now on."""
        if self.member is not None and self.member.connection is self.link:
            self.lobby.dropped(self.member)

    def _watching_a_game(self, now: float) -> bool:
        """At a table whose game moved within the idle timeout (a game stuck on a vanished player's
        turn does not keep anyone connected)."""
        table = self.member.table if self.member is not None else None
        return table is not None and table.status == "playing" and \
            now - table.moved_at < self.host.config.idle_timeout

    # --- the hello ----------------------------------------------------------------------------------
    def _hello(self, hello: Hello) -> None:
        """A hello: with a key not yet proven in this session, challenge it first."""
        hello.check_version()
        self._challenge = None
        if hello.front is not None or self.front:
            self._front_hello(hello)
            return
        if self.channel:
            raise ProtocolError("bad_field", "hello.front: a channel of a front's link speaks for a front's player",
                                fatal=True, params={"why": "front"})
        host = self.host
        if host.config.fronts_only:
            raise ProtocolError("access_denied", "this port takes only the server's SSH fronts: play with "
                                                 f"{host.access.ssh_hint}", fatal=True,
                                params={"why": "fronts_only", "ssh": host.access.ssh_hint})
        if hello.key is not None:  # "" too: a key that does not decode, never a guest
            key = parse_public_key(hello.key)
            if fingerprint(key) != self.identity:
                nonce = self.nonces(NONCE_BYTES)
                self._challenge = (hello, key, nonce)
                self.send(Challenge(nonce=nonce))
                return
        self._enter(hello)

    def _front_hello(self, hello: Hello) -> None:
        """A trusted front's hello for one of its players: the key and address the front vouches for."""
        asserted = check_front(hello.front)
        if not self.front:
            if not self.host.trusts(asserted.credential):
                log.warning("%s: refused: a front hello with a credential this server does not trust", self.peer)
                raise ProtocolError("not_trusted", "hello.front: this server does not trust that credential",
                                    fatal=True)
            why = self.host.readdress(self.address, asserted.address)
            if why is not None:
                raise ProtocolError("too_many_connections", why, fatal=True, params=params_of(why))
            self.address = asserted.address
            self.front = True
            self.identity = asserted.identity
            self.admitted_at_the_door = True  # the front applied the access policy at its SSH login
        elif asserted.identity != self.identity or asserted.address != self.address:
            raise ProtocolError("bad_field", "hello.front: a connection speaks for one player only",
                                params={"why": "front"})
        self._enter(hello)

    def _link(self, link: FrontLink) -> None:
        """A front makes this connection the link for all its players: trusted by its credential, once."""
        if not self.host.trusts(link.credential):
            log.warning("%s: refused: a front's link with a credential this server does not trust", self.peer)
            raise ProtocolError("not_trusted", "front_link: this server does not trust that credential", fatal=True)
        self.client_name = clean_text(link.client or "")[:64]
        self.linked = link
        self.link.send_frame(encode(Linked().to_wire()))
        if self.on_welcome is not None:
            self.on_welcome()

    def rest_of_stream(self) -> bytes:
        """What the client sent after its ``front_link``, for the link's own reader."""
        return self._decoder.rest()

    def _prove(self, prove: Prove) -> None:
        """The signature answering the challenge: the key is proven, the hello goes on."""
        if self._challenge is None:
            raise ProtocolError("no_challenge", "prove answers a challenge: send hello with your key first")
        hello, key, nonce = self._challenge
        self._challenge = None
        if not verify_proof(key, self.host.certificate_digest, nonce, prove.signature):
            raise ProtocolError("bad_signature", "the signature does not prove that you hold the key; "
                                                 "send hello again for a new challenge")
        self.identity = fingerprint(key)
        self.key_line = key.export_public_key().decode().strip()  # a refusal shows it, for authorized_keys
        self._enter(hello)

    def _enter(self, hello: Hello) -> None:
        """A hello whose key (if any) is proven: moderation (bans, an operator's session, the names deny
        list) and the access policy decide, then the lobby takes it."""
        lobby = self.lobby
        if lobby.names_shared and self._looked_up is not hello:  # another node may have claimed it: read first
            self.parked = hello
            return
        if self.front and self.identity is not None and not hello.name.strip():  # the name this key owns
            hello = dataclasses.replace(hello, name=lobby.name_of(self.identity) or "")
        admitted = lobby.at_the_door(self, hello)
        if admitted is None:
            return
        if not self.admitted_at_the_door:
            self._check_access(admitted)
            if self.refusal is not None:
                return
        member = lobby.hello(self.link, admitted, self.identity, self.peer)
        self.let_in(member)
        lobby.welcomed(member)

    def let_in(self, member: Member) -> None:
        """The hello is accepted: ``member`` speaks through this session from now on."""
        self.member = member
        if self.on_welcome is not None:
            self.on_welcome()

    def _check_access(self, hello: Hello) -> None:
        """Apply the server's access policy to a TCP hello; a refusal closes the session (``refuse``)."""
        host = self.host
        if host.players_full():
            raise ProtocolError("too_many_connections", "the server is full", fatal=True, params={"why": "full"})
        refusal = host.access.decide(self.identity, hello.password, self.address, self.key_line)
        if refusal is not None:
            log.warning("%s: refused at hello: %s", self.peer, refusal)
            self.refusal = ProtocolError("access_denied", refusal, fatal=True, params=params_of(refusal))
