"""A server message as the client layer takes it in: decoded into its typed value (ono99_kernel.wire.server)
once per process. A front's link hands every channel it is for the same map (a lobby's list, a table's
state for its spectators), and each session's app takes it in; the typed values are frozen, so the
sessions share one."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from ono99_kernel.wire.server import ServerMessage, decode_server_message

RECENT = 512  # maps remembered: more than one pass of the link hands to its channels at once

_recent: OrderedDict[int, tuple[Mapping[str, Any], ServerMessage]] = OrderedDict()


def decode_shared(message: Mapping[str, Any]) -> ServerMessage:
    """``message`` decoded, or the value it was decoded to a moment ago (by identity: the map is kept
    with it, so its id is not another's while remembered). Raises as ``decode_server_message`` does."""
    key = id(message)
    known = _recent.get(key)
    if known is not None and known[0] is message:
        return known[1]
    decoded = decode_server_message(message)
    _recent[key] = (message, decoded)
    if len(_recent) > RECENT:
        _recent.popitem(last=False)
    return decoded
