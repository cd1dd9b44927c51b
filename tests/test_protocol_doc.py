"""docs/protocol.md is a contract: its example conversations (sections 3, 3a, 3b, 5b, 6a, 6b, 6c and 13) are
read out of the document and run against a real server, configured as the text before each says. Each `C→S`
line is sent as written; each `S→C` line must match the next message received, field by field (a
map written with `…` may have more fields; `OPTS` is the options map), the resume token aside,
which is random. `NONCE` matches the 32 bytes of a `challenge`, and `SIGNATURE` is sent as the
signature of the last nonce by the document's example key (tests/data/protocol_example_key). A
line `… … …` between messages skips messages; meanwhile the client plays as the
text says: the first card it may play. A line `… … connects again …` opens a new connection. The
server deals from the seed the example was taken with.

The document's field lists of server messages (section 5), tables (section 6) and views (section 7)
name exactly the fields the reference client reads: those of ono99_kernel/wire/server.py's dataclasses."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from ono99_kernel.fingerprints import fingerprint_digest
from ono99_kernel.protocol import identity_proof_message
from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.ssh_settings import SshSettings
from ono99_kernel.wire.link import CHANNEL, FRONT_LINK, FrontLink, ToServer
from ono99_kernel.wire.requests import Act, decode_request
from ono99_kernel.wire.server import Chat, TableDetail, TableInfo, Unplayable, View
from tests.declared import SERVER_TYPES
from tests.server_helpers import ROOT, TIMEOUT, may_act, running_server

DOC = ROOT / "docs" / "protocol.md"
EXAMPLE_SEED = 79  # the deal of the example: Table.start draws its seed with secrets.randbits
MORE = "…"  # in a map: fields left out; between messages: messages left out
ANY = object()
EXAMPLE_KEY = asyncssh.read_private_key(str(ROOT / "tests" / "data" / "protocol_example_key"))


# Each example's section, and the server it runs against (as its text says).
EXAMPLES: dict[str, dict[str, Any]] = {
    "## 3. Connection life cycle": {"ssh": SshSettings(auth="password", password="open sesame")},
    "## 3a. Identity: a key, proven by a signature": {},
    "## 3b. Fronts: a trusted front speaks for its players": {
        "front_credentials": ("Vq3dK0sXh1YfWm8PzR2tLc9uNb4eJa7G",)},
    "## 3c. A front's link: one connection for all its players": {
        "front_credentials": ("Vq3dK0sXh1YfWm8PzR2tLc9uNb4eJa7G",)},
    "## 5b. Running a public host: players' mutes, blocks and reports; operators": {
        "admins": ROOT / "tests" / "data" / "protocol_example_admins"},
    "## 6a. Series": {},
    "## 6b. Arenas": {"arena_bot_wait": 0.0, "arena_starts_in": 0.0},
    "## 6c. Tournaments in a profile": {"arena_bot_wait": 0.0, "arena_starts_in": 0.0, "database": True},
    "## 13. Example": {},
}


def example_lines(heading: str, doc: Path = DOC) -> list[str]:
    """The lines of the first `text` block after ``heading``, which must be in that section."""
    text = doc.read_text(encoding="utf-8")
    section = text[text.index(heading):]
    start = section.index("```text\n") + len("```text\n")
    assert "\n## " not in section[:start], f"no example in {heading}"
    return section[start:section.index("```", start)].splitlines()


def test_every_conversation_in_the_document_is_run() -> None:
    text = DOC.read_text(encoding="utf-8")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    with_examples = []
    for heading, after in zip(headings, [*headings[1:], None], strict=True):
        body = text[text.index(heading):text.index(after) if after else len(text)]
        if "C→S {" in body:
            with_examples.append(heading)
    assert with_examples == list(EXAMPLES)


def entries(lines: list[str]) -> list[tuple[str, str]]:
    """(direction, text) per message: "C→S", "S→C", or "skip"; indented lines continue a message."""
    found: list[tuple[str, str]] = []
    for line in lines:
        stripped = line.strip()
        if not stripped:
            continue
        if line.startswith(("C→S ", "S→C ")):
            found.append((line[:3], line[4:]))
        elif stripped.startswith(MORE) and stripped.endswith(MORE):
            found.append(("skip", stripped))
        else:
            assert found and line.startswith(" "), f"a line that is no message: {line!r}"
            direction, text = found[-1]
            found[-1] = (direction, f"{text} {stripped}")
    return found


def pattern(text: str) -> Any:
    """A message as the document writes it, as JSON: `…` becomes a key saying more fields may be there."""
    for placeholder in ("OPTS", "NONCE", "SIGNATURE"):
        text = text.replace(placeholder, f'"__{placeholder}__"')
    text = text.replace(MORE, f' "{MORE}": 0 ')
    text = re.sub(rf'("{MORE}": 0)\s+(")', r"\1, \2", text)
    text = re.sub(rf'([\d\]}}"el])\s+("{MORE}": 0)', r"\1, \2", text)
    return json.loads(text)


def matches(expected: Any, actual: Any) -> bool:
    if expected == "__OPTS__":
        return isinstance(actual, dict)
    if expected == "__NONCE__":
        return isinstance(actual, bytes) and len(actual) == 32
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return False
        shown = {k: v for k, v in expected.items() if k != MORE}
        if MORE not in expected and set(shown) != set(actual):
            return False
        return all(k in actual and matches(v, actual[k]) for k, v in shown.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(
            matches(e, a) for e, a in zip(expected, actual, strict=True))
    return type(expected) is type(actual) and expected == actual


def test_the_examples_are_read_whole_from_the_document() -> None:
    found = entries(example_lines("## 13. Example"))
    kinds = [k for k, _ in found]
    assert kinds.count("C→S") >= 5 and kinds.count("S→C") >= 20 and kinds.count("skip") == 1
    for heading in EXAMPLES:
        for kind, text in entries(example_lines(heading)):
            if kind != "skip":
                assert isinstance(pattern(text), dict), text


@pytest.mark.parametrize("heading", list(EXAMPLES))
async def test_the_example_conversation_runs_against_a_server(tmp_path: Path, heading: str) -> None:
    script = entries(example_lines(heading))
    with mock.patch("ono99_server.table_room.secrets.randbits", return_value=EXAMPLE_SEED):
        config = {key: value for key, value in EXAMPLES[heading].items() if key != "database"}
        kept = tmp_path / "x.db" if EXAMPLES[heading].get("database") else None  # a database, if the text says so
        async with running_server(tmp_path, db_path=kept, **config) as h:
            client = await h.raw()
            acted: set[tuple[int, int]] = set()  # (game, version): a series plays several games
            skipping = False
            last: dict[str, Any] = {}

            async def play_on(message: dict[str, Any]) -> None:
                """Where messages are left out, the client plays its first legal card."""
                view = message.get("view")
                if (message.get("t") == "state" and isinstance(view, dict) and may_act(view)
                        and (message["game_no"], view["version"]) not in acted):
                    acted.add((message["game_no"], view["version"]))
                    await client.send(Act(action=view["legal"][0], version=view["version"]))

            for step, (kind, text) in enumerate(script):
                if kind == "skip" and "connects again" in text:
                    client = await h.raw()
                    continue
                if kind == "skip":
                    skipping = True
                    await play_on(last)  # the message just before may already be its turn
                    continue
                expected = pattern(text)
                if kind == "C→S":
                    assert not skipping, "a message left out must end at a server message"
                    if expected.get("signature") == "__SIGNATURE__":
                        server_key = fingerprint_digest(client.server_fingerprint)  # the certificate it saw
                        expected["signature"] = EXAMPLE_KEY.sign(identity_proof_message(server_key, last["nonce"]),
                                                                 b"ssh-ed25519")
                    if expected["t"] in (FRONT_LINK, CHANNEL):  # a front's link (section 3c), typed as it has it
                        link_frame = FrontLink.from_wire(expected) if expected["t"] == FRONT_LINK else \
                            ToServer.from_wire(expected)
                        assert link_frame.to_wire() == expected, text
                        inner = expected.get("m")
                        if inner is not None and "front" in inner:
                            assert decode_request(inner).to_wire() == inner, text
                        await client.send_map(expected)
                        continue
                    request = decode_request(expected)  # the document's request, as the typed model has it
                    assert request.to_wire() == expected, text
                    await client.send(request)
                    continue
                while True:
                    message = await client.recv(TIMEOUT)
                    if message.get("t") == "welcome":
                        assert isinstance(message.pop("resume"), str)
                        expected = {k: v for k, v in expected.items() if k != "resume"}
                    if matches(expected, message):
                        break
                    assert skipping, f"message {step}: expected {text}\n got {json.dumps(message)}"
                    await play_on(message)
                last = message
                skipping = False


def hex_block_after(marker: str) -> bytes:
    """The bytes of the first `text` block after ``marker`` in section 3a, written in hex."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index("```text\n", text.index(marker)) + len("```text\n")
    return bytes.fromhex("".join(text[start:text.index("```", start)].split()))


def test_the_identity_proof_test_vector_is_what_the_client_signs_and_the_server_accepts() -> None:
    """Section 3a's vector: the bytes signed for a server fingerprint and a nonce, and the signature
    blob the example key makes of them, which the server's check accepts for that server only."""
    from ono99_server.key_proof import verify_proof

    server_key = fingerprint_digest("SHA256:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8")
    assert server_key == bytes(range(0x20, 0x40))
    nonce = bytes(range(32))
    signed = hex_block_after("A test vector")
    assert identity_proof_message(server_key, nonce) == signed
    assert len(signed) == 88
    blob = hex_block_after("and the `prove.signature` blob")
    assert EXAMPLE_KEY.sign(signed, b"ssh-ed25519") == blob
    public = asyncssh.import_public_key(EXAMPLE_KEY.export_public_key())
    assert verify_proof(public, server_key, nonce, blob)
    assert not verify_proof(public, bytes(32), nonce, blob)  # the same proof, for another certificate


# --- the document's field lists are those the reference client reads (ono99_kernel/wire/server.py) -----------
def section(heading: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(heading)
    return text[start:text.index("\n## ", start + 1)]


def table_rows(text: str) -> list[list[str]]:
    """The cells of each row of the markdown tables in ``text``, header and rule rows left out."""
    rows = [[cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
            for line in text.splitlines() if line.startswith("|")]
    return [row for row in rows if not row[0].startswith("---") and row[0] not in ("`t`", "field", "`e`")]


def top_level(fields: str) -> list[str]:
    """The names of a fields cell: each comma or semicolon separated part outside parentheses and
    braces that starts with a quoted name (`name` int, ...)."""
    depth, flat = 0, ""
    for ch in fields:
        depth += ch in "({"
        if depth == 0:
            flat += ch
        depth -= ch in ")}"
    return [m.group(1) for part in re.split(r"[,;]", flat) if (m := re.match(r"\s*`([a-z_]+)`", part))]


def wire_fields(cls: type) -> list[str]:
    names = [field.name for field in dataclasses.fields(cls) if field.name != "t"]
    if cls is Chat:  # a chat message carries its one line's fields itself
        names = [name for name in names if name != "line"] + ["id", "from", "text", "at"]
    return names


def test_section_5_lists_each_server_message_with_the_fields_the_reference_client_reads() -> None:
    documented = {row[0].strip("`"): top_level(row[1]) for row in table_rows(section("## 5. Server → client"))}
    assert set(documented) == set(SERVER_TYPES)
    for kind, cls in SERVER_TYPES.items():
        assert sorted(documented[kind]) == sorted(wire_fields(cls)), kind


def test_sections_6_and_7_list_the_fields_of_a_table_and_a_view_the_reference_client_reads() -> None:
    table = table_rows(section("## 6. Tables"))
    info = [row[0].strip("`") for row in table if not row[2].startswith("DETAIL only")]
    detail = [row[0].strip("`") for row in table]
    assert sorted(info) == sorted(f.name for f in dataclasses.fields(TableInfo))
    assert sorted(detail) == sorted(f.name for f in dataclasses.fields(TableDetail))
    views = section("## 7. Views and events").split("EVENT:")[0]
    view = [row[0].strip("`") for row in table_rows(views.split("UNPLAYABLE:")[0])]
    assert sorted(view) == sorted(f.name for f in dataclasses.fields(View))
    unplayable = [row[0].strip("`") for row in table_rows(views.split("UNPLAYABLE:")[1])]
    assert sorted(unplayable) == sorted(f.name for f in dataclasses.fields(Unplayable))
