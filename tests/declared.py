"""Whether a decoded server message holds values of the types ono99_kernel/wire/server.py declares for it,
all the way down: the dataclasses are the one description of server messages, and this reads them."""

from __future__ import annotations

import dataclasses
import math
import types
from collections.abc import Mapping
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from ono99_kernel.core.options import TableOptions
from ono99_kernel.wire.server import ServerMessage, UnknownMessage


def type_name(cls: type) -> str:
    """The ``t`` a server message type is sent with: its dataclass's default (slots hide it on the class)."""
    (t,) = (field.default for field in dataclasses.fields(cls) if field.name == "t")
    assert isinstance(t, str)
    return t


SERVER_TYPES: dict[str, type] = {type_name(cls): cls for cls in get_args(ServerMessage) if cls is not UnknownMessage}


def conforms(value: Any, hint: Any) -> bool:
    """``value`` is of the declared type ``hint``: exact scalar types (a bool is no int), finite floats,
    literals among their values, tuples of their item types, dataclasses field by field."""
    origin = get_origin(hint)
    if hint is type(None):
        return value is None
    if origin is Literal:
        return value in get_args(hint)
    if origin in (Union, types.UnionType):
        return any(conforms(value, option) for option in get_args(hint))
    if origin is tuple:
        args = get_args(hint)
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(conforms(item, args[0]) for item in value)
        return len(args) == len(value) and all(conforms(v, a) for v, a in zip(value, args, strict=True))
    if origin is Mapping:
        key, item = get_args(hint)
        return isinstance(value, Mapping) and all(conforms(k, key) and conforms(v, item) for k, v in value.items())
    if hint is TableOptions:  # the engine's own value, checked by TableOptions.from_mapping
        return type(value) is TableOptions
    if dataclasses.is_dataclass(hint):
        return type(value) is hint and all(conforms(getattr(value, name), field_hint)
                                           for name, field_hint in get_type_hints(hint).items())
    if hint is float:
        return type(value) is float and math.isfinite(value)
    if hint in (int, bool, str, bytes):
        return type(value) is hint
    raise TypeError(f"conforms() does not know {hint!r}")


def as_declared(message: ServerMessage) -> bool:
    """A decoded message is of a known type and holds values of its declared types."""
    return not isinstance(message, UnknownMessage) and conforms(message, SERVER_TYPES[message.t])
