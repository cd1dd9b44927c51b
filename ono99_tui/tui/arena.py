"""Arenas in the app (docs/rules.md, "Arenas"): the lobby's line and its key (a), and the standings
screen, with the countdown to the arena's start or end and "your next game starts in 3 s". The
screen opens when you join and closes when you are seated (the table comes); it opens again from the
lobby with a while you are in an arena. A (or a when no arena is listed) opens the dialog of private
arenas: join one by its invite code, or open your own (its code shows on the standings screen)."""

from __future__ import annotations

import time
from typing import Any
from weakref import WeakKeyDictionary

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from ono99_kernel.wire.requests import AskArenaResults, JoinArena, LeaveArena, Spectate
from ono99_kernel.wire.server import ArenaGame, ArenaMessage, ServerMessage

from ..arena_text import arena_line, next_game_line, podium_line, results_title, standings_lines
from ..client.model import Model
from ..client.session import own_private_arena
from ..i18n import N_
from ..i18n import gettext as _
from .host import ShowsModel, host_of
from .unbidden import OpensByItself
from .widgets import KeysFooter


def lobby_arena_line(model: Model) -> str:
    """The lobby's line for the first arena listed, with its key; "" when there is none."""
    if model.arena is not None and model.arena.joined:
        mine = model.arena
        return _("{arena} · you are in it: a shows the standings").format(
            arena=arena_line(mine.arena, time.monotonic() - model.arena_at))
    if not model.arenas:
        return ""
    first = model.arenas[0]
    return _("{arena} · a: join").format(arena=arena_line(first, time.monotonic() - model.arenas_at))


def join_or_show(app: Any) -> None:
    """The lobby's key a: the standings of the arena you are in, else join the first one listed."""
    host = host_of(app)
    model = host.model
    if model.arena is not None and model.arena.joined:
        app.push_screen(ArenaScreen())
    elif model.arenas:
        host.send_message(JoinArena(arena=model.arenas[0].id))
    else:
        app.push_screen(PrivateArenaScreen())


class PrivateArenaScreen(ModalScreen[None]):
    """A private arena among friends: join one by its invite code, or open your own (an hour of
    four-seat 2022 games from now; you are in it, and its code is on its standings screen)."""

    BINDINGS = [Binding("escape", "dismiss", N_("Cancel"))]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(_("A private arena: join one by its invite code"))
            yield Input(placeholder=_("e.g. K7QX2M"), id="arena-code", max_length=16)
            yield Button(_("Open my own arena (an hour, 4 seats)"), id="arena-open")
        yield KeysFooter()

    @on(Input.Submitted)
    def join(self, event: Input.Submitted) -> None:
        code = event.value.strip()
        if code:
            host_of(self).send_message(JoinArena(code=code))
            self.dismiss()

    @on(Button.Pressed, "#arena-open")
    def open_own(self) -> None:
        host_of(self).send_message(own_private_arena())
        self.dismiss()


_OPENED: WeakKeyDictionary[App[Any], int] = WeakKeyDictionary()  # the arena whose standings opened by themselves


def after_message(app: App[Any], message: ServerMessage) -> None:
    """The app's part for arenas, after the model took ``message`` in: the standings open when you join
    (in the lobby), and you are told when your next game starts."""
    if isinstance(message, ArenaMessage) and not message.joined and message.arena.status != "finished" \
            and message.you is None and not message.arena.private:  # the answer to opening one (player menu)
        app.notify(_("{arena} is open; a in the lobby joins it").format(arena=arena_line(message.arena)), timeout=6)
    if isinstance(message, ArenaGame):
        app.notify(_("Your next game starts in {seconds} s").format(seconds=f"{message.starts_in:.0f}"), timeout=4)
    elif isinstance(message, ArenaMessage) and (not message.joined or (message.you is not None
                                                                       and message.you.playing)):
        _OPENED.pop(app, None)  # out of it, or seated: back in the lobby after the game, they open once more
    elif isinstance(message, ArenaMessage) and _OPENED.get(app) != message.arena.id \
            and host_of(app).model.table is None \
            and not any(isinstance(s, ArenaScreen) for s in app.screen_stack):  # not when just seated
        _OPENED[app] = message.arena.id  # once: closed, it stays closed (a opens it again)
        app.push_screen(ArenaScreen())


class ArenaScreen(ShowsModel, OpensByItself[None]):
    """The arena you are in: its line, when your next game starts, the standings, the podium at the end."""

    BINDINGS = [
        Binding("escape", "dismiss", N_("Close")),
        Binding("l", "leave", N_("Leave the arena")),
        Binding("t", "watch_top", N_("Watch the top game")),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._title = Label(id="arena-title", markup=False)
        self._next = Static(id="arena-next", markup=False)
        self._standings = Static(id="arena-standings", markup=False)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield self._title
            yield self._next
            yield self._standings
        yield KeysFooter()

    def on_mount(self) -> None:
        self.refresh_model(host_of(self).model)
        self.set_interval(1.0, lambda: self.refresh_model(host_of(self).model))  # the countdowns

    def refresh_model(self, model: Model) -> None:
        message = model.arena
        if message is None:
            return
        elapsed = time.monotonic() - model.arena_at
        title = Text(arena_line(message.arena, elapsed), style="bold")
        if message.code and message.joined:
            title.append("\n" + _("Invite code {code}: friends join with A in the lobby").format(code=message.code),
                         style="not bold")
        self._title.update(title)
        podium = podium_line(message.podium)
        upcoming = message.arena.status == "upcoming"
        waiting = next_game_line(message, elapsed)
        if podium is not None:
            self._next.update(Text(podium, style="bold"))
        elif upcoming and message.joined:
            self._next.update(Text(_("You are in: your first game starts when the arena does")))
        else:
            self._next.update(Text(waiting or (_("You left this arena; your points stay yours")
                                              if not message.joined else "")))
        lines = standings_lines(message) or [_("Nobody has played yet.")]
        self._standings.update(Text("\n".join(lines)))

    def action_watch_top(self) -> None:
        """Watch the game of the best-placed player playing now; you stay in the arena."""
        model = host_of(self).model
        top = model.arena.arena.top_table if model.arena is not None else None
        if top is None:
            self.notify(_("Nobody in this arena is playing just now."), timeout=4)
            return
        host_of(self).send_message(Spectate(table=top))
        self.dismiss()

    def action_leave(self) -> None:
        model = host_of(self).model
        if model.arena is not None and model.arena.joined:
            host_of(self).send_message(LeaveArena())
        self.dismiss()


class ArenaResultsScreen(ShowsModel, ModalScreen[None]):
    """A tournament's standings as the server keeps them, opened from a profile (``name``: whose profile;
    None: mine)."""

    BINDINGS = [Binding("escape", "dismiss", N_("Close"))]

    def __init__(self, arena: int, name: str | None = None) -> None:
        super().__init__()
        self.arena, self.player = arena, name
        self._title = Label(_("Standings: loading…"), id="arena-results-title", markup=False)
        self._podium = Static(id="arena-results-podium", markup=False)
        self._standings = Static(id="arena-results-standings", markup=False)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield self._title
            yield self._podium
            yield self._standings
        yield KeysFooter()

    def on_mount(self) -> None:
        host = host_of(self)
        host.model.arena_results = None
        host.send_message(AskArenaResults(arena=self.arena, name=self.player))

    def refresh_model(self, model: Model) -> None:
        results = model.arena_results
        if results is None or results.arena != self.arena:
            return
        self._title.update(Text(results_title(results), style="bold"))
        self._podium.update(Text(podium_line(results.podium) or ""))
        self._standings.update(Text("\n".join(standings_lines(results)) or _("Nobody has played yet.")))
