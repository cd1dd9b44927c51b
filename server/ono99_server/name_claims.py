"""Player names: when two names count as the same, and which identity (key) owns each name.

Two names are the same name when they share a key: the key is the name after Unicode NFKC
normalisation (full-width and other compatibility forms become plain letters), case folding, and
the confusables skeleton of Unicode Technical Standard #39 (a Cyrillic "А" or a Greek "Α" becomes a
Latin "a", "0" and "O" become "o", and so on); a name has a second key, its skeleton taken before
case folding, so that a capital "I" is still an "l". The confusables data is Unicode's, as shipped by the
``confusable-homoglyphs`` package.

A name that a key has claimed belongs to that key, across sessions and restarts (it is saved in
the database): nobody else, with another key or as a guest, may use it or one that looks like it.
Each key holds one name; a key that asks for another free name moves to it and frees the old one.
A name whose key has not said hello for ``NAME_KEPT_DAYS`` is free again (it is released when
someone else asks for it, or one that looks like it); an operator may release one at once.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import unicodedata
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING

from ono99_kernel.protocol import ProtocolError
from ono99_kernel.wire import server as wire

if TYPE_CHECKING:
    from .members import Member
    from .storage import Storage

log = logging.getLogger("ono99.names")
LOOK_UP_SECONDS = 2.0  # a hello waits this long at most for the shared database's claims on its name
_DIRECTION_MARKS = "\u200e\u200f"  # the data wraps some right-to-left characters in these
NAME_KEPT_DAYS = 180  # a name whose key has not been seen for this long is free again
SEEN_SAVED_EVERY = 86400.0  # seconds: a key's last hello is written at most once a day


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character and its prototype (what it looks like, as in confusables.txt)."""
    from confusable_homoglyphs.confusables import confusables_data

    neighbours: dict[str, set[str]] = defaultdict(set)
    for char, glyphs in confusables_data.items():
        a = char.strip(_DIRECTION_MARKS)
        for glyph in glyphs:
            b = str(glyph["c"]).strip(_DIRECTION_MARKS)
            if a and b and a != b:
                neighbours[a].add(b)
                neighbours[b].add(a)
    # The package keeps each line "source → prototype" of confusables.txt in both directions, so
    # each group is a star around its prototype: the member next to all the others. In a group of
    # two either one will do (both map to the same); a multi-character member is the prototype.
    mapping: dict[str, str] = {}
    seen: set[str] = set()
    for start in neighbours:
        if start in seen:
            continue
        group: set[str] = set()
        todo = [start]
        while todo:
            node = todo.pop()
            if node not in group:
                group.add(node)
                todo.extend(neighbours[node] - group)
        seen |= group
        centres = [n for n in group if neighbours[n] >= group - {n}]
        prototype = min(centres, key=lambda n: (-len(n), n))
        for node in group:
            if len(node) == 1 and node != prototype:
                mapping[node] = prototype
    return mapping


def skeleton(text: str) -> str:
    """The UTS #39 skeleton: each character replaced by the prototype it can be confused with."""
    prototypes = _prototypes()
    mapped = "".join(prototypes.get(ch, ch) for ch in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def name_key(name: str) -> str:
    """What a name is compared by: NFKC, case folded, white space runs as one space, skeleton."""
    return _settled(unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold()))


def name_keys(name: str) -> frozenset[str]:
    """Every key a name is known by: ``name_key``, and the key of its skeleton taken before case
    folding. Folding first turns a capital "I" into "i", which no longer looks like "l", so "aIice"
    would pass beside "alice"; two names are the same name when they share a key."""
    return frozenset((name_key(name), _settled(skeleton(unicodedata.normalize("NFKC", name)))))


def _settled(text: str) -> str:
    key = " ".join(text.split())
    for _ in range(3):  # some prototypes are capitals ("0" looks like "O"): fold and map again
        folded = skeleton(key).casefold()
        if folded == key:
            break
        key = folded
    return key


def same_name_refusal(wanted: str, existing: str, taken: str = "is taken on this server") -> str:
    """Why ``wanted`` cannot be used while ``existing`` (of the same key) is someone else's."""
    if wanted == existing:
        return f"the name {wanted!r} {taken}; choose another"
    if unicodedata.normalize("NFKC", wanted).casefold() == unicodedata.normalize("NFKC", existing).casefold():
        return f"the name {wanted!r} is the same as {existing!r}, which {taken}; choose another"
    return f"the name {wanted!r} looks like {existing!r}, which {taken}; choose another"


def name_taken_params(wanted: str, existing: str, keyed: bool = False) -> dict[str, str | int]:
    """The ``params`` of a ``name_taken`` error: ``why`` is ``taken``, ``same`` or ``looks_like`` (as in
    ``same_name_refusal``), ``keyed`` 1 when the name belongs to a player with a key."""
    if wanted == existing:
        why = "taken"
    elif unicodedata.normalize("NFKC", wanted).casefold() == unicodedata.normalize("NFKC", existing).casefold():
        why = "same"
    else:
        why = "looks_like"
    return {"why": why, "name": wanted, "existing": existing, "keyed": int(keyed)}


def let_go_for_name(member: Member, name: str, other: str) -> None:
    """``member`` was welcome as ``name`` but another node's claim (as ``other``) came first: they are
    told ``name_taken``, as at a hello, and let go."""
    if member.name == name and member.connection is not None:
        reason = same_name_refusal(name, other)
        member.send(wire.ErrorMessage(code="name_taken", reason=reason, ref="hello",
                                      params=name_taken_params(name, other)))
        member.connection.close(reason)


class NameRegistry:
    """The names owned by identities, kept in memory and written through to the database.

    On a database that several nodes share (PostgreSQL), another node may claim a name at any time:
    each hello reads the claims that decide it first (``look_up``), and each claim is made in one
    transaction against every node's (``Storage.claim_name``); a claim that loses there to another
    node's is undone here and its player let go (``lost``)."""

    def __init__(self, storage: Storage | None) -> None:
        self.storage = storage
        self.shared = storage is not None and storage.kind == "postgresql"  # several nodes may claim in it
        # Told (identity, name, the other claim's name) when a claim lost in the database to another node's.
        self.lost: Callable[[str, str, str], None] | None = None
        self._by_key: dict[str, tuple[str, str]] = {}  # each key of a name (name_keys) -> (name, identity)
        self._by_identity: dict[str, str] = {}  # identity -> its name
        self.clock = time.time
        self._last_seen: dict[str, float] = storage.load_names_seen() if storage is not None else {}
        self._claims: set[asyncio.Task[None]] = set()
        name_key("")  # the confusables table is built now, not on the first hello
        if storage is not None:
            for identity, name in storage.load_names():  # oldest claim first: it keeps a contested key
                keys = name_keys(name)
                if not keys & self._by_key.keys():
                    self._learn(identity, name)
            # claims made before the keys were kept get theirs (on the database, the oldest claim's too)
            storage.keep_name_keys(sorted((key, identity) for key, (_, identity) in self._by_key.items()))

    def name_of(self, identity: str) -> str | None:
        return self._by_identity.get(identity)

    def owner(self, name: str) -> tuple[str, str] | None:
        """(the owned name, its identity) for a name that is, or looks like, an owned one. A name
        whose key has not been seen for ``NAME_KEPT_DAYS`` is released here, and is not owned."""
        for key in sorted(name_keys(name)):
            owned = self._by_key.get(key)
            if owned is not None and self._lapsed(owned[1]):
                self.release(owned[1])
                owned = None
            if owned is not None:
                return owned
        return None

    # --- keys that never come back --------------------------------------------------------------------
    def seen(self, identity: str) -> None:
        """``identity`` said hello: the name it owns is kept ``NAME_KEPT_DAYS`` from now."""
        if identity not in self._by_identity:
            return
        now = self.clock()
        last = self._last_seen.get(identity)
        self._last_seen[identity] = now
        if self.storage is not None and (last is None or now - last >= SEEN_SAVED_EVERY):
            self.storage.save_name_seen(identity, now)

    def _lapsed(self, identity: str) -> bool:
        last = self._last_seen.get(identity)
        return last is not None and self.clock() - last > NAME_KEPT_DAYS * 86400.0

    def release(self, identity: str) -> str | None:
        """Free the name ``identity`` owns (an operator's ``release``, or its key never came back):
        anyone may take it. The name it was, if any."""
        name = self._by_identity.pop(identity, None)
        self._last_seen.pop(identity, None)
        if name is None:
            return None
        for key in name_keys(name):
            if self._by_key.get(key, ("", ""))[1] == identity:
                del self._by_key[key]
        if self.storage is not None:
            self.storage.forget_name(identity)
        return name

    def check(self, name: str, identity: str | None) -> None:
        """Refuse (``name_taken``) a name that belongs to another identity, or looks like one that does."""
        owned = self.owner(name)
        if owned is not None and owned[1] != identity:
            taken = "is taken on this server" if identity is not None else "belongs to a player with a key"
            raise ProtocolError("name_taken", same_name_refusal(name, owned[0], taken),
                                params=name_taken_params(name, owned[0], identity is None))

    async def look_up(self, name: str, identity: str | None) -> None:
        """Read from the shared database the claims on ``name`` (or one that looks like it) and
        ``identity``'s name, as they stand now: what ``check``, ``name_of`` and ``owner`` then say. A
        database that does not answer within LOOK_UP_SECONDS raises ``TimeoutError``."""
        assert self.storage is not None
        keys = sorted(name_keys(name)) if name.strip() else []
        claims = await asyncio.wait_for(self.storage.name_claims(keys, identity), LOOK_UP_SECONDS)
        for key in keys:
            held = self._by_key.get(key)
            if held is not None:
                self._forget(held[1])
        if identity is not None:
            self._forget(identity)
        for who, owned in claims:
            self._forget(who)
            self._learn(who, owned)

    def claim(self, identity: str, name: str) -> None:
        """Make ``name`` the name of ``identity`` (checked first with ``check``)."""
        if self._by_identity.get(identity) == name:
            return
        self._forget(identity)
        self._learn(identity, name)
        if self.storage is not None:
            task = asyncio.get_running_loop().create_task(self._claim(self.storage, identity, name))
            self._claims.add(task)
            task.add_done_callback(self._claims.discard)

    async def _claim(self, storage: Storage, identity: str, name: str) -> None:
        try:
            held = await storage.claim_name(identity, name, sorted(name_keys(name)))
        except Exception:
            log.exception("names: the claim of %r was not saved", name)
            return
        if held is None:
            return
        other, whose = held
        log.info("names: %r went to another node's claim (as %r) first", name, other)
        if self._by_identity.get(identity) == name:
            self._forget(identity)
        self._forget(whose)
        self._learn(whose, other)
        if self.lost is not None:
            self.lost(identity, name, other)

    def _learn(self, identity: str, name: str) -> None:
        self._by_key.update(dict.fromkeys(name_keys(name), (name, identity)))
        self._by_identity[identity] = name

    def _forget(self, identity: str) -> None:
        old = self._by_identity.pop(identity, None)
        if old is not None:
            for key in name_keys(old):
                if self._by_key.get(key, ("", ""))[1] == identity:
                    del self._by_key[key]
