"""What the web front and the browser page it serves say on the websocket (docs/web.md, "The
websocket"), as typed values: the front's text messages, each sent as the JSON of its ``to_wire`` map,
and the page's (``open``, ``resize``), read by ``decode_page_request``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from ..protocol import MAX_NAME

MAX_PAGE_TEXT = 4096  # characters of a JSON frame from the page
MAX_RESUME = 128  # characters of a resume token (the protocol's limit)
MAX_PASSWORD = 1024
MAX_CODE = 16  # characters of an invite code as the page sends it (its own check is the front's)
MAX_LANG = 16

Refusal = Literal["password", "refused"]  # ask for the password again; not let in


@dataclass(frozen=True, slots=True, kw_only=True)
class KeepGuest:
    """A welcome: the guest's name and resume token, for the page to keep."""

    name: str
    resume: str

    def to_wire(self) -> dict[str, Any]:
        return {"t": "guest", "name": self.name, "resume": self.resume}


@dataclass(frozen=True, slots=True, kw_only=True)
class Closing:
    """Why the page is not let in, or no longer: ``password`` (ask for it again), ``refused`` (the
    access policy, a limit) or ``bye`` (the session is over)."""

    kind: Refusal | Literal["bye"]
    text: str

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.kind, "text": self.text}


@dataclass(frozen=True, slots=True, kw_only=True)
class Typing:
    """Whether the app's focus is on a text box (chat, a name): only then may a touch screen's page
    open its soft keyboard."""

    text: bool

    def to_wire(self) -> dict[str, Any]:
        return {"t": "typing", "text": self.text}


PageMessage = KeepGuest | Closing | Typing


# --- what the page says -----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class Open:
    """The page's first message: the terminal's size, the guest it kept (``name``, ``resume``), the
    password, the invite code of ``/t/CODE``, ``watch`` (``/watch/CODE``) and the page's language. A
    field missing or of another type counts as absent (its default); texts are cut to their limits."""

    cols: int = 80
    rows: int = 24
    name: str = ""
    resume: str = ""
    password: str = ""
    code: str = ""
    watch: bool = False
    lang: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Resize:
    """The page's terminal has a new size (a size that is no whole number from 1 to 99999: 80 by 24)."""

    cols: int = 80
    rows: int = 24


PageRequest = Open | Resize


def decode_page_request(text: str) -> PageRequest | None:
    """A text frame from the page, or None for one that is too long, no JSON map, or of another ``t``."""
    if len(text) > MAX_PAGE_TEXT:
        return None
    try:
        said = json.loads(text)
    except ValueError:
        return None
    if not isinstance(said, dict):
        return None
    cols, rows = _whole(said.get("cols"), 80), _whole(said.get("rows"), 24)
    if said.get("t") == "resize":
        return Resize(cols=cols, rows=rows)
    if said.get("t") != "open":
        return None
    return Open(cols=cols, rows=rows, name=_text(said.get("name"), MAX_NAME),
                resume=_text(said.get("resume"), MAX_RESUME), password=_text(said.get("password"), MAX_PASSWORD),
                code=_text(said.get("code"), MAX_CODE), watch=said.get("watch") is True,
                lang=_text(said.get("lang"), MAX_LANG))


def _whole(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 100_000 else default


def _text(value: Any, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""
