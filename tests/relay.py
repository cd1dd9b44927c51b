"""Relays on loopback between a client and a server. ``Relay`` passes bytes through, for network
faults a test causes on purpose: ``drop()`` cuts every relayed connection, and while ``cutting`` is
set the relay accepts new connections and closes them at once (a path that connects, then fails); it
keeps every byte it carried in ``captured`` (what a packet capture on the path would read).
``TlsTerminatingRelay`` is a rogue in the middle: it ends the client's TLS with a certificate of its
own and opens its own TLS session to the server, reading everything in between."""

from __future__ import annotations

import asyncio
import contextlib
import ssl

from ono99_kernel.tls import client_context, ephemeral_certificate


class Relay:
    def __init__(self, target_port: int, host: str = "127.0.0.1") -> None:
        self.target = (host, target_port)
        self.cutting = False
        self.accepted = 0  # connections accepted, relayed or cut
        self.cut = 0  # connections accepted and closed at once
        self.captured = bytearray()  # every byte carried, both ways
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0, ssl=self._client_side())
        return self.port

    def _client_side(self) -> ssl.SSLContext | None:
        return None  # bytes as they come

    def _server_side(self) -> ssl.SSLContext | None:
        return None

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        if self.cutting:
            self.cut += 1
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target, ssl=self._server_side())
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}
        pumps = [asyncio.create_task(self._pump(reader, up_writer)), asyncio.create_task(self._pump(up_reader, writer))]
        self._tasks.update(pumps)
        await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        for w in (writer, up_writer):
            w.transport.abort()
            self._writers.discard(w)

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await reader.read(65536):
                self.captured += data
                writer.write(data)
                await writer.drain()

    def drop(self) -> None:
        """Cut every connection the relay carries now."""
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def close(self) -> None:
        self.drop()
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 5)
        for task in self._tasks:
            task.cancel()


class TlsTerminatingRelay(Relay):
    """A relay that shows clients its own certificate (``fingerprint``) and speaks TLS to the server
    itself: ``captured`` is the conversation in clear."""

    def __init__(self, target_port: int, host: str = "127.0.0.1") -> None:
        super().__init__(target_port, host)
        self.certificate = ephemeral_certificate()

    @property
    def fingerprint(self) -> str:
        return self.certificate.fingerprint

    def _client_side(self) -> ssl.SSLContext | None:
        return self.certificate.context()

    def _server_side(self) -> ssl.SSLContext | None:
        return client_context()
