"""What the web front tells the browser page it serves, as typed values: the front's text messages
on the websocket (docs/web.md, "The websocket"), each sent as the JSON of its ``to_wire`` map."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

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
