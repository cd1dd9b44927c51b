"""What the screens ask of the app they run in, typed: the game app (tui/app.py's ``Ono99App``) is a
``ScreenHost``; ``ono99 replay`` (replay.py) runs the table screen in an app that is a ``TableHost`` only.
What the app and the footer ask of a screen that does it is typed here too (``ShowsModel``,
``HidesFooterKeys``).

Screens reach the app through these protocols (``ModelScreen.ono``, ``host_of``), never through the
app's own class: the app imports the screens, and the screens do not import it back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, cast, runtime_checkable

from textual.app import App
from textual.message_pump import MessagePump

from ono99_kernel.wire.requests import Request

from ..client.model import Model
from .settings import Settings


class TableHost(Protocol):
    """What a table screen asks of what it shows: the game app, or a replay, which sends nothing."""

    model: Model
    local: bool

    def send_action(self, code: str) -> None: ...

    def send_message(self, message: Request) -> None: ...

    def bell_if_wanted(self, end: bool = False) -> None: ...

    def action_new_game(self) -> None: ...

    def action_lobby(self) -> None: ...


@runtime_checkable
class ScreenHost(TableHost, Protocol):
    """The game app as its screens use it."""

    settings: Settings  # the player's; saved by ``save_settings`` when ``keep_settings``
    keep_settings: bool
    bell_on_turn: bool
    player_name: str
    play_now_wish: tuple[str, int]  # the edition and table size play now asks for

    def save_settings(self) -> None: ...

    def hold_bots_unless_table_shown(self) -> None: ...

    def fast_forward(self, on: bool = True) -> None: ...

    def analyse_finished_game(self) -> bool:
        """Open the replay of the local game just finished with the analysis of the player's seat; False
        when there is no such game."""

    def join_by_code(self, code: str) -> None: ...

    def confirm_leaving(self, then: Callable[[], Any], doing: str, *, local_too: bool = False,
                        question: str | None = None) -> None: ...

    def relabel(self) -> None: ...

    def show_table(self) -> None:
        """Show the table screen (one shown already stays, with the dialogs over it)."""

    def show_profile(self, name: str | None = None) -> None:
        """Open the profile of ``name`` (None: the player's own) over the screen shown."""


@runtime_checkable
class Rewinds(Protocol):
    """An app that steps through a record (``ono99 replay``): it can go back to a step."""

    def go_to(self, position: int) -> None: ...


# Base classes, not protocols: the app asks every screen of its stack after every server message, and a
# protocol's isinstance costs a hundred times a class's.
class ShowsModel:
    """A screen, or a dialog, that shows the app's model: the app has it drawn again after every
    server message."""

    def refresh_model(self, model: Model) -> None:
        """Render the model."""


class HidesFooterKeys:
    """A screen whose footer leaves out the keys that would do nothing now."""

    def footer_shows(self, action: str) -> bool:
        """Whether the footer shows the key of ``action``."""
        return True


def table_host_of(node: MessagePump) -> TableHost:
    """The app that ``node`` (a table screen's dialog) runs in: the game app or ``ono99 replay``."""
    return cast(TableHost, node.app)


def host_of(node: MessagePump) -> ScreenHost:
    """The game app that ``node`` (a screen of it, or the app itself) runs in."""
    return cast(ScreenHost, node if isinstance(node, App) else node.app)


def game_app_of(node: MessagePump) -> ScreenHost | None:
    """The game app that ``node`` runs in, or None when it runs in another (the table screen in
    ``ono99 replay``)."""
    app = node.app
    return app if isinstance(app, ScreenHost) else None
