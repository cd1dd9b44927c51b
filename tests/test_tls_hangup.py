"""A client that completes the TLS handshake and hangs up at once (``ono99 connect`` reading a new
server's certificate on a first visit): a real server on loopback, the client's TLS driven by hand so
that its last handshake message and its close come in one write."""

from __future__ import annotations

import asyncio
import logging
import ssl
from pathlib import Path

import pytest

from ono99_server import Server
from tests.server_helpers import server_config, wait_until


async def handshake_then_hang_up(port: int) -> None:
    """TLS 1.3 to ``port``; the client's Finished and its close_notify go out together, then FIN."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # the certificate is only read here, as on a first visit
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    while True:
        try:
            tls.do_handshake()
            break
        except ssl.SSLWantReadError:
            writer.write(outgoing.read())
            data = await asyncio.wait_for(reader.read(65536), 30)
            assert data, "the server closed during the handshake"
            incoming.write(data)
    with pytest.raises(ssl.SSLWantReadError):
        tls.unwrap()  # the close_notify is written; the server's is not waited for
    writer.write(outgoing.read())
    writer.write_eof()
    await writer.drain()
    await asyncio.wait_for(reader.read(), 30)  # the server's end of the connection
    writer.close()


async def test_a_client_hanging_up_right_after_the_handshake_logs_no_asyncio_warning(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Found in the server's log, for each first visit of ``ono99 connect``: ``asyncio WARNING returning
    true from eof_received() has no effect when using ssl``. The stream only counts as TLS once
    ``start_tls`` has resumed, and a hang-up read with the handshake's end came before that."""
    caplog.set_level(logging.WARNING, logger="asyncio")
    server = Server(server_config(tmp_path))
    await server.start()
    try:
        for _attempt in range(3):
            await handshake_then_hang_up(server.port)
        await wait_until(lambda: not server.connections, "the connections closed on the server")
    finally:
        await server.close()
    assert not [r for r in caplog.records if "eof_received" in r.getMessage()], caplog.text
