"""What a client reads of a server message before decoding it, here only: its kind, and whether states of
one game follow each other (a burst of them is taken in as its last, with every event). Decoding a state
(its view above all) costs as much as drawing it, so a spectator of a fast table, who gets dozens a
second, merges them first; the fronts' shared screens keep a table's last messages as they came. Every
other reading is of the decoded values of ono99_kernel/wire/server.py."""

from __future__ import annotations

from typing import Any

Raw = dict[str, Any]  # a message as it came off the connection (a msgpack map)


def kind(message: Raw | None) -> str | None:
    """The message's type (``t``), or None for the end of a link's messages."""
    found = message.get("t") if message is not None else None
    return found if isinstance(found, str) else None


def notice_code(message: Raw) -> object:
    """A notice's code (None for another message)."""
    return message.get("code") if kind(message) == "notice" else None


def game_runs(message: Raw) -> bool:
    """Whether ``message`` is a state of a game nobody has won yet."""
    view = message.get("view")
    return kind(message) == "state" and isinstance(view, dict) and view.get("winner") is None


def table_id(message: Raw | None) -> int | None:
    """The id of a ``table`` message's table."""
    table = message.get("table") if message is not None else None
    found = table.get("id") if isinstance(table, dict) else None
    return found if isinstance(found, int) else None


def watching(message: Raw | None) -> bool:
    """Whether a ``table`` message is told to a spectator (a member without a seat)."""
    table = message.get("table") if message is not None else None
    return isinstance(table, dict) and table.get("you") is None


def continues(last: Raw, message: Raw) -> bool:
    """Whether ``message`` is a state that follows the state ``last`` in one table's game, event after
    event (by their numbers): the two can be taken in as one, the later with the events of both."""
    return (kind(message) == "state" == kind(last)
            and message.get("table") == last.get("table") and message.get("game_no") == last.get("game_no")
            and isinstance(message.get("events"), list) and isinstance(last.get("events"), list)
            and isinstance(message.get("seq"), int) and isinstance(last.get("seq"), int)
            and message["seq"] - len(message["events"]) == last["seq"])


def joined(last: Raw, message: Raw) -> Raw:
    """``message`` (which ``continues`` ``last``) with the events of both. ``last``'s list of events is
    extended in place: it must be its holder's own (``own_events``)."""
    events = last["events"]
    events.extend(message["events"])
    return {**message, "events": events}


def own_events(message: Raw) -> Raw:
    """``message`` with a list of events of its own, which ``joined`` may extend (as it is, if it has none)."""
    return {**message, "events": list(message["events"])} if isinstance(message.get("events"), list) else message


def merged_states(messages: list[Raw]) -> list[Raw]:
    """``messages`` with each run of states of one table and game, whose events follow each other, made
    one: the last state with every event of the run."""
    out: list[Raw] = []
    for message in messages:
        last = out[-1] if out else None
        if last is not None and continues(last, message):
            out[-1] = {**message, "events": [*last["events"], *message["events"]]}
        else:
            out.append(message)
    return out
