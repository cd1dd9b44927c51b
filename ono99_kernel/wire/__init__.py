"""The ONO 99 protocol as typed values, both ways (docs/protocol.md): every message a server sends
(``wire.server``: built and encoded by the server, decoded by clients) and every request a client
sends (``wire.requests``: built and encoded by clients, validated by the server at its edge); and what
the web front tells its browser page (``wire.page``, docs/web.md). The framing, text checks and limits
they rest on are ono99_kernel/protocol.py's. Nothing outside this package writes a message's map by hand."""
