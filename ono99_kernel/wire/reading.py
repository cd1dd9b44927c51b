"""Reading the fields of a server message, each checked as it is read: the checks the client applies
to whatever a server sends (types, ranges, lengths), and the reason naming the field that failed.
Used by the decoders of ono99_kernel/wire/server.py."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, cast

from ..core.cards import CODES
from ..core.errors import OptionError
from ..core.options import TableOptions
from ..protocol import ProtocolError

MAX_INT = 2**63 - 1  # counters the server keeps (ids, seq, versions, chat ids)
MAX_NAME_WIRE = 64  # a player's name as the server sends it (20 characters, or "<name> (bot)")
MAX_TEXT = 4096  # English reasons and notices, summaries
MAX_CARDS = 200  # cards in one hand or pile: a deck holds fewer
CARD_CODES = frozenset(CODES)
ACTION_CODES = CARD_CODES | {"ONO99x4", "draw"}
PARAM_LIMIT = 256  # characters of one reason parameter
Params = Mapping[str, str | int]

T = TypeVar("T")
MISSING = object()


class Reader:
    """The fields of one map of a message, each checked as it is read. ``where`` names the map in
    a reason, e.g. ``state.view`` or ``tables.tables[3].seats[0]``."""

    __slots__ = ("data", "where")

    def __init__(self, data: object, where: str) -> None:
        if not isinstance(data, Mapping):
            raise fault(where, f"must be a map, not {type_of(data)}")
        self.data: Mapping[str, Any] = data
        self.where = where

    def raw(self, name: str, default: object) -> Any:
        value = self.data.get(name, MISSING)
        if value is MISSING:
            if default is MISSING:
                raise fault(f"{self.where}.{name}", "is missing")
            return default
        return value

    def at(self, name: str) -> str:
        return f"{self.where}.{name}"

    def num(self, name: str, low: int = 0, high: int = MAX_INT, *, nil: bool = False,
            default: object = MISSING) -> Any:
        return read_int(self.raw(name, default), self.at(name), low, high, nil=nil)

    def text(self, name: str, limit: int = MAX_TEXT, *, nil: bool = False, default: object = MISSING) -> Any:
        return read_str(self.raw(name, default), self.at(name), limit, nil=nil)

    def choice(self, name: str, choices: Sequence[str], *, nil: bool = False, default: object = MISSING) -> Any:
        return read_choice(self.raw(name, default), self.at(name), choices, nil=nil)

    def flag(self, name: str, *, nil: bool = False, default: object = MISSING) -> Any:
        return read_bool(self.raw(name, default), self.at(name), nil=nil)

    def real(self, name: str, *, nil: bool = False, low: float = -math.inf, default: object = MISSING) -> Any:
        return read_float(self.raw(name, default), self.at(name), nil=nil, low=low)

    def seq(self, name: str, item: Callable[[Any, str], T], *, nil: bool = False, length: int | None = None,
             limit: int = 4096, default: object = MISSING) -> tuple[T, ...] | None:
        return read_list(self.raw(name, default), self.at(name), item, nil=nil, length=length, limit=limit)

    def items(self, name: str, item: Callable[[Any, str], T], *, length: int | None = None,
              limit: int = 4096, default: object = MISSING) -> tuple[T, ...]:
        """A list that is never nil."""
        return cast(tuple[T, ...], self.seq(name, item, length=length, limit=limit, default=default))

    def sub(self, name: str, *, nil: bool = False, default: object = MISSING) -> Reader | None:
        value = self.raw(name, default)
        if value is None and nil:
            return None
        return Reader(value, self.at(name))


def fault(where: str, problem: str) -> ProtocolError:
    return ProtocolError("bad_field", f"the server's {where} {problem}")


def type_of(value: object) -> str:
    return "nil" if value is None else type(value).__name__


def read_int(value: Any, where: str, low: int, high: int, *, nil: bool = False) -> int | None:
    if value is None and nil:
        return None
    if type(value) is not int:
        raise fault(where, f"must be int{' or nil' if nil else ''}, not {type_of(value)}")
    if not low <= value <= high:
        raise fault(where, f"must be from {low} to {high}, not {value}")
    return value


def read_str(value: Any, where: str, limit: int, *, nil: bool = False) -> str | None:
    if value is None and nil:
        return None
    if not isinstance(value, str):
        raise fault(where, f"must be str{' or nil' if nil else ''}, not {type_of(value)}")
    if len(value) > limit:
        raise fault(where, f"must be at most {limit} characters, not {len(value)}")
    return value


def read_choice(value: Any, where: str, choices: Sequence[str], *, nil: bool = False) -> str | None:
    if value is None and nil:
        return None
    if not isinstance(value, str) or value not in choices:
        shown = value[:32] if isinstance(value, str) else type_of(value)
        raise fault(where, f"must be one of {', '.join(choices)}{' or nil' if nil else ''}, not {shown!r}")
    return value


def read_bool(value: Any, where: str, *, nil: bool = False) -> bool | None:
    if value is None and nil:
        return None
    if not isinstance(value, bool):
        raise fault(where, f"must be bool{' or nil' if nil else ''}, not {type_of(value)}")
    return value


def read_float(value: Any, where: str, *, nil: bool = False, low: float = -math.inf) -> float | None:
    """A float; a whole number is taken too (a float that happens to be whole may be packed as one)."""
    if value is None and nil:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise fault(where, f"must be float{' or nil' if nil else ''}, not {type_of(value)}")
    number = float(value) if isinstance(value, float) or abs(value) < 2**53 else math.nan
    if not math.isfinite(number) or number < low:
        raise fault(where, f"must be a finite number of at least {low}, not {value}")
    return number


def read_list(value: Any, where: str, item: Callable[[Any, str], T], *, nil: bool = False,
          length: int | None = None, limit: int = 4096) -> tuple[T, ...] | None:
    if value is None and nil:
        return None
    if not isinstance(value, list | tuple):
        raise fault(where, f"must be a list{' or nil' if nil else ''}, not {type_of(value)}")
    if length is not None and len(value) != length:
        raise fault(where, f"must have {length} entries (one per seat), not {len(value)}")
    if len(value) > limit:
        raise fault(where, f"must have at most {limit} entries, not {len(value)}")
    return tuple(item(v, f"{where}[{i}]") for i, v in enumerate(value))


# element readers
def seat_no(seats: int) -> Callable[[Any, str], int]:
    return lambda v, where: cast(int, read_int(v, where, 0, seats - 1))


def count(v: Any, where: str) -> int:
    return cast(int, read_int(v, where, 0, MAX_INT))


def signed(v: Any, where: str) -> int:
    return cast(int, read_int(v, where, -MAX_INT, MAX_INT))


def flag(v: Any, where: str) -> bool:
    return cast(bool, read_bool(v, where))


def card(v: Any, where: str) -> str:
    return cast(str, read_choice(v, where, tuple(CODES)))


def action(v: Any, where: str) -> str:
    if not isinstance(v, str) or v not in ACTION_CODES:
        raise fault(where, f"must be an action code, not {v!r}"[:200])
    return v


def name_text(v: Any, where: str) -> str:
    return cast(str, read_str(v, where, MAX_NAME_WIRE))


def options(edition: str, value: Any, where: str) -> TableOptions:
    if not isinstance(value, Mapping):
        raise fault(where, f"must be a map, not {type_of(value)}")
    try:  # options a newer server adds are ignored, as unknown fields are
        return TableOptions.from_mapping(edition, value, strict=False)
    except (OptionError, TypeError, ValueError) as exc:
        raise fault(where, f"are not valid: {exc}"[:300]) from None


def params(value: Any, where: str) -> Params:
    if not isinstance(value, Mapping):
        raise fault(where, f"must be a map, not {type_of(value)}")
    out: dict[str, str | int] = {}
    for key, item in value.items():
        if isinstance(item, str):
            out[key] = cast(str, read_str(item, f"{where}.{key}", PARAM_LIMIT))
        elif type(item) is int:
            out[key] = item
        else:
            raise fault(f"{where}.{key}", f"must be str or int, not {type_of(item)}")
    return out
