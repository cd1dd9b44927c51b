"""What a test reads of a running app, typed: the game and the table it shows (a test that asks for them
expects them there, and fails saying so when they are not), and the server a local game embeds."""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from textual.dom import DOMNode
from textual.widget import Widget

from ono99_kernel.wire.requests import Request
from ono99_kernel.wire.server import TableDetail, View
from ono99_server import Server
from ono99_server.local import EmbeddedServer
from ono99_tui.client.model import Model
from ono99_tui.tui.app import Ono99App, make_app
from tests.wire import watched_game, welcome_map


class ShowsAModel(Protocol):
    """An app that draws a ``Model``: the game's app, an SSH session's, a replay."""

    @property
    def model(self) -> Model: ...


def view_of(app: ShowsAModel) -> View:
    view = app.model.view
    assert view is not None, "the app shows no game"
    return view


def table_of(app: ShowsAModel) -> TableDetail:
    table = app.model.table
    assert table is not None, "the app is at no table"
    return table


def parent_of(widget: Widget) -> DOMNode:
    """The container a widget sits in (a dialog's option and its label share a row)."""
    assert widget.parent is not None, "a widget that is not mounted"
    return widget.parent


def local_server(app: Ono99App) -> Server:
    """The game server of a local game: the app holds it only as a ``LocalServer`` (it never imports
    ``server/``)."""
    embedded = app._embedded
    assert isinstance(embedded, EmbeddedServer), "not a local game"
    return embedded.server


class ScriptedLink:
    """A link whose server messages the test writes: recorded states, replayed to a real app."""

    def __init__(self) -> None:
        self.inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.sent: list[dict[str, Any]] = []  # the requests' maps, as they would go on the wire
        self.welcome: dict[str, Any] = {}

    async def send(self, message: Request) -> None:
        self.sent.append(message.to_wire())

    async def close(self) -> None:
        return


def spectator_app() -> tuple[Ono99App, ScriptedLink, list[dict[str, Any]]]:
    """A spectator's app whose link holds its welcome and a recorded game's table, and that game's
    states for the link (tests/wire.py's ``watched_game``)."""
    table, states = watched_game()
    link = ScriptedLink()
    link.inbox.put_nowait(welcome_map("Watcher", table=0))
    link.inbox.put_nowait({"t": "table", "table": table})

    async def open_link() -> ScriptedLink:
        return link

    return make_app(local=False, name="Watcher", open_link=open_link), link, states
