"""The server messages as typed values: kept under this name for its importers. The protocol's one
typed model, both ways, is ono99_tui/wire/ (server messages in ``wire.server``, requests in
``wire.requests``)."""

from __future__ import annotations

from .wire.server import *  # noqa: F403
from .wire.server import __all__  # noqa: F401
