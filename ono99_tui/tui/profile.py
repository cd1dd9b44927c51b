"""A player's profile (ratings, win rates, rating history, recent games, tournaments) and the replay of a
finished game fetched from the server; also the app's handling of the play-now and rating messages."""

from __future__ import annotations

import json
import zlib
from typing import Any

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Sparkline, Static

from ono99_kernel.wire.requests import AskGameRecord, AskProfile
from ono99_kernel.wire.server import GameRecord, Profile, ServerMessage

from .. import text as words
from ..arena_text import place_of, when
from ..client.labels import listed_name
from ..client.model import Model
from ..i18n import N_
from ..i18n import gettext as _
from ..numbers import decimal, percent
from .arena import ArenaResultsScreen
from .host import ShowsModel, host_of
from .playnow import QueueScreen
from .replay import ServerReplayScreen, replay_steps
from .widgets import KeysFooter

MAX_RECORD_BYTES = 4 * 1024 * 1024  # a fetched record is refused beyond this size once unpacked


class ProfileScreen(ShowsModel, ModalScreen[None]):
    """Someone's profile (``name``; None: mine). Enter on a recent game replays it."""

    BINDINGS = [Binding("escape", "dismiss", N_("Close")), Binding("enter", "replay", N_("Replay the game"))]

    def __init__(self, name: str | None = None) -> None:
        super().__init__()
        self.player = name
        self._shown: Profile | None = None  # the profile the lists show

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="profile"):
            yield Label(_("Profile: loading…"), id="profile-title")
            yield Static(id="profile-editions", markup=False)
            yield Static(id="profile-history-text", markup=False)
            yield Sparkline([], id="profile-history")
            yield Label(_("Recent games (Enter: replay)"))
            yield DataTable(id="profile-games", cursor_type="row")
            yield Label(_("Tournaments (Enter: the standings)"), id="profile-arenas-title")
            yield DataTable(id="profile-arenas", cursor_type="row")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#profile-games", DataTable).add_columns(_("game"), _("edition"), _("when"), _("place"),
                                                                _("players"))
        self.query_one("#profile-arenas", DataTable).add_columns(_("tournament"), _("edition"), _("when"),
                                                                 _("place"), _("points"), _("games"))
        self._show_arenas(False)
        app = host_of(self)
        app.model.profile = None
        app.send_message(AskProfile(name=self.player))
        self.query_one("#profile-games", DataTable).focus()

    def _show_arenas(self, shown: bool) -> None:
        """The tournaments' list only for a player who played in one (the dialog keeps its room otherwise)."""
        self.query_one("#profile-arenas-title").display = shown
        self.query_one("#profile-arenas").display = shown

    def refresh_model(self, model: Model) -> None:
        profile = model.profile
        if profile is None or profile is self._shown:  # drawn already: the lists keep their cursors
            return
        self._shown = profile
        self.query_one("#profile-title", Label).update(Text(_("Profile of {name}").format(name=profile.name)))
        lines = Text()
        for row in profile.editions:
            rate = "–" if row.win_rate is None else percent(row.win_rate, 0)
            rating = (_("{edition}: rating {rating} (provisional)") if row.provisional
                      else _("{edition}: rating {rating}")).format(edition=row.edition,
                                                                     rating=decimal(row.rating))
            games = words.count(row.games, "{n} game", "{n} games")  # not in an f-string: the catalogs see it
            wins = words.count(row.wins, "{n} win", "{n} wins")
            lines.append(" · ".join((rating, games, wins, _("win rate {rate}").format(rate=rate))) + "\n")
        if not profile.editions:
            lines.append(_("No rated games yet: press p in the lobby to play now.") + "\n")
        self.query_one("#profile-editions", Static).update(lines)
        history = profile.history
        shown = " → ".join(decimal(h.rating) for h in history[-6:])
        self.query_one("#profile-history-text", Static).update(
            Text(_("Rating history, {games}: {ratings}").format(
                games=_("the last game") if len(history) == 1
                else words.count(len(history), "the last {n} game", "the last {n} games"), ratings=shown)
                 if history else _("No rating history yet.")))
        self.query_one(Sparkline).data = [h.rating for h in history]
        grid = self.query_one("#profile-games", DataTable)
        grid.clear()
        for game in profile.recent:
            place = str(game.place) + (" " + _("(won)") if game.won else "") + \
                ("" if game.credited else " " + _("(away)"))
            players = Text(", ".join(listed_name(name) for name in game.players))
            grid.add_row(str(game.game), game.edition, when(game.at), place, players, key=str(game.game))
        arenas = self.query_one("#profile-arenas", DataTable)
        arenas.clear()
        for arena in profile.arenas:  # its name is the opener's: plain text
            arenas.add_row(Text(arena.name), arena.edition, when(arena.at), place_of(arena.place, arena.players),
                           str(arena.points), str(arena.games), key=str(arena.arena))
        self._show_arenas(bool(profile.arenas))

    @on(DataTable.RowSelected, "#profile-games")
    def row_chosen(self) -> None:
        self.action_replay()

    @on(DataTable.RowSelected, "#profile-arenas")
    def arena_chosen(self) -> None:
        """Open the chosen tournament's standings, as the server keeps them."""
        grid = self.query_one("#profile-arenas", DataTable)
        profile = host_of(self).model.profile
        if profile is None or not profile.arenas or grid.cursor_row < 0:
            return
        arena = profile.arenas[min(grid.cursor_row, len(profile.arenas) - 1)]
        self.app.push_screen(ArenaResultsScreen(arena.arena, None if profile.you else profile.name))

    def action_replay(self) -> None:
        if self.focused is self.query_one("#profile-arenas", DataTable):
            self.arena_chosen()
            return
        grid = self.query_one("#profile-games", DataTable)
        model = host_of(self).model
        profile = model.profile
        if profile is None or not profile.recent or grid.cursor_row < 0:
            return
        game = profile.recent[min(grid.cursor_row, len(profile.recent) - 1)].game
        host_of(self).send_message(AskGameRecord(game=game))


def open_record(app: App[Any], message: GameRecord) -> None:
    """Show a ``game_record`` the server sent, following the seat of the player whose profile listed it."""
    try:
        unpacker = zlib.decompressobj()
        text = unpacker.decompress(message.record, MAX_RECORD_BYTES)
        if unpacker.unconsumed_tail:
            raise ValueError(_("the record is too large"))
        record = json.loads(text)
        steps = replay_steps(record, _("Replay of game {game}").format(game=message.game))
    except Exception as exc:  # a record this app cannot read: say so, keep going
        app.notify(_("Cannot replay game {game}: {error}").format(game=message.game, error=exc),
                   severity="error", markup=False)
        return
    profile = host_of(app).model.profile
    names = [str(p.get("name", "")) for p in record.get("players", []) if isinstance(p, dict)]
    seat = names.index(profile.name) if profile is not None and profile.name in names else 0
    app.push_screen(ServerReplayScreen(steps, seat=seat))


def after_message(app: App[Any], kind: str, message: ServerMessage) -> None:
    """The app's part for play now and ratings, after the model took ``message`` in."""
    if kind == "queue":
        if host_of(app).model.queue is not None and not any(isinstance(s, QueueScreen) for s in app.screen_stack):
            app.push_screen(QueueScreen())
    elif isinstance(message, GameRecord):
        open_record(app, message)
    elif kind == "table" and any(isinstance(s, ServerReplayScreen) for s in app.screen_stack):
        # Seated (play now found a table) while watching a replay: to the table.
        while any(isinstance(s, ServerReplayScreen) for s in app.screen_stack):
            app.pop_screen()
        host_of(app).show_table()
