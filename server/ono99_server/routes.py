"""Which handler takes each type of request: the parts of the lobby route their requests here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from ono99_kernel.wire.requests import Request

from .members import Member

R = TypeVar("R", bound=Request)
Handler = Callable[[Member, Any], None]  # takes the request type it is routed for (``Router``)


class Router(Protocol):
    """Sends the requests of type ``kind`` to ``handler``."""

    def __call__(self, kind: type[R], handler: Callable[[Member, R], None]) -> None: ...


class Dispatch:
    """Which handler takes each type of request."""

    def __init__(self) -> None:
        self.handlers: dict[type, Handler] = {}

    def route(self, kind: type[R], handler: Callable[[Member, R], None]) -> None:
        self.handlers[kind] = handler

    def __call__(self, member: Member, request: Request) -> None:
        self.handlers[type(request)](member, request)
