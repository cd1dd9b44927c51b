"""A refused hello, as the client library hands it over: ``ServerError`` carries the server's ``error``
decoded once, where it arrives (ono99_tui/client/connection.py), and everything that says why reads that value."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ono99_kernel.protocol import FrameDecoder, encode
from ono99_kernel.tls import ephemeral_certificate
from ono99_kernel.wire.server import ErrorMessage
from ono99_tui.client.connection import Client
from ono99_tui.client.errors import ServerError
from ono99_tui.i18n import using
from ono99_tui.reasons import said
from tests.server_helpers import TIMEOUT, running_server


async def test_a_refused_hello_carries_the_decoded_error_with_its_params(tmp_path: Path) -> None:
    async with running_server(tmp_path) as h:
        await h.connect("Ada")
        with pytest.raises(ServerError) as info:
            await Client.connect("127.0.0.1", h.port, "ADA", timeout=TIMEOUT)
    error = info.value.error
    assert isinstance(error, ErrorMessage) and error.ref == "hello"
    assert (info.value.code, info.value.reason) == (error.code, error.reason) and error.code == "name_taken"
    assert error.params == {"why": "same", "name": "ADA", "existing": "Ada", "keyed": 0}
    with using("de"):
        german = said(error)
    assert "'ADA'" in german and "'Ada'" in german and german != error.reason  # said from the params, in German


async def refusing_server(error: dict[str, object]) -> tuple[asyncio.Server, int]:
    """A server on loopback TLS that answers any hello with ``error``, then closes."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        decoder = FrameDecoder()
        while True:
            data = await reader.read(65536)
            if not data:
                return
            if any(m.get("t") == "hello" for m in decoder.feed(data)):
                break
        writer.write(encode(error))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=ephemeral_certificate().context())
    return server, server.sockets[0].getsockname()[1]


async def test_a_refusal_this_version_cannot_read_is_still_a_refusal_that_says_why() -> None:
    server, port = await refusing_server({"t": "error", "code": "name_taken", "reason": "taken",
                                          "params": {"name": 1.5}})
    async with server:
        with pytest.raises(ServerError) as info:
            await Client.connect("127.0.0.1", port, "Ada", timeout=TIMEOUT)
    assert info.value.code == "bad_field" and "error.params.name" in info.value.reason
    assert info.value.error.params == {} and said(info.value.error) == info.value.reason


def test_only_an_error_message_makes_a_server_error() -> None:
    refusal = ServerError.from_wire({"t": "error", "code": "bad_name", "reason": "no", "ref": "hello",
                                     "params": {"why": "length", "limit": 20}})
    assert refusal.error == ErrorMessage(code="bad_name", reason="no", ref="hello",
                                         params={"why": "length", "limit": 20})
    with pytest.raises(TypeError):
        ServerError.from_wire({"t": "pong", "n": 1})
