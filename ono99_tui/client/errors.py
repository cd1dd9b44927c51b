"""What goes wrong with a connection to a server, as the client layer names it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ono99_kernel.protocol import ProtocolError
from ono99_kernel.wire.server import ErrorMessage, decode_server_message


class ServerError(Exception):
    """The server answered with an ``error`` message: ``error``, decoded (code, English reason, params)."""

    def __init__(self, error: ErrorMessage) -> None:
        super().__init__(f"{error.code}: {error.reason}")
        self.error = error

    @property
    def code(self) -> str:
        return self.error.code

    @property
    def reason(self) -> str:
        return self.error.reason

    @classmethod
    def from_wire(cls, message: Mapping[str, Any]) -> ServerError:
        """The refusal an ``error`` message says, decoded once, here. One this version cannot read is
        still a refusal: its code is then the decoder's (``bad_field``/``bad_message``) and its reason
        says what could not be read."""
        try:
            decoded = decode_server_message(message)
        except ProtocolError as exc:
            decoded = ErrorMessage(code=exc.code, reason=f"an error this version cannot read ({exc.reason})",
                                   ref=None, params={})
        if not isinstance(decoded, ErrorMessage):
            raise TypeError(f"not an error message: {message.get('t')!r}")
        return cls(decoded)


class ConnectionLost(Exception):
    """The connection to the server closed."""
