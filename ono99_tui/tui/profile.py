"""A player's profile (ratings, win rates, rating history, recent games) and the replay of a
finished game fetched from the server; also the app's handling of the play-now and rating messages."""

from __future__ import annotations

import json
import time
import zlib
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Sparkline, Static

from .model import Model
from .playnow import QueueScreen
from .screens import HelpScreen, TableScreen
from .widgets import KeysFooter

if TYPE_CHECKING:
    from .app import Ono99App

MAX_RECORD_BYTES = 4 * 1024 * 1024  # a fetched record is refused beyond this size once unpacked


class ProfileScreen(ModalScreen[None]):
    """Someone's profile (``name``; None: mine). Enter on a recent game replays it."""

    BINDINGS = [Binding("escape", "dismiss", "Close"), Binding("enter", "replay", "Replay the game")]

    def __init__(self, name: str | None = None) -> None:
        super().__init__()
        self.player = name

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="profile"):
            yield Label("Profile: loading…", id="profile-title")
            yield Static(id="profile-editions", markup=False)
            yield Static(id="profile-history-text", markup=False)
            yield Sparkline([], id="profile-history")
            yield Label("Recent games (Enter: replay)")
            yield DataTable(id="profile-games", cursor_type="row")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("game", "edition", "when", "place", "players")
        app: Any = self.app
        app.model.profile = None
        message: dict[str, Any] = {"t": "profile"}
        if self.player is not None:
            message["name"] = self.player
        app.send_message(message)
        self.query_one(DataTable).focus()

    def refresh_model(self, model: Model) -> None:
        profile = model.profile
        if profile is None:
            return
        self.query_one("#profile-title", Label).update(Text(f"Profile of {profile['name']}"))
        lines = Text()
        for row in profile["editions"]:
            rate = "–" if row["win_rate"] is None else f"{100 * row['win_rate']:.0f}%"
            lines.append(f"{row['edition']}: rating {row['rating']:.2f}"
                         f"{' (provisional)' if row['provisional'] else ''} · {row['games']} games · "
                         f"{row['wins']} wins · win rate {rate}\n")
        if not profile["editions"]:
            lines.append("No rated games yet: press p in the lobby to play now.\n")
        self.query_one("#profile-editions", Static).update(lines)
        history = profile["history"]
        shown = " → ".join(f"{h['rating']:.2f}" for h in history[-6:])
        self.query_one("#profile-history-text", Static).update(
            Text(f"Rating history, last {len(history)} games: {shown}" if history else "No rating history yet."))
        self.query_one(Sparkline).data = [float(h["rating"]) for h in history]
        grid = self.query_one(DataTable)
        grid.clear()
        for game in profile["recent"]:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(game["at"]))
            place = f"{game['place']}{' (won)' if game['won'] else ''}{'' if game['credited'] else ' (away)'}"
            grid.add_row(str(game["game"]), game["edition"], when, place, Text(", ".join(game["players"])),
                         key=str(game["game"]))

    @on(DataTable.RowSelected)
    def row_chosen(self) -> None:
        self.action_replay()

    def action_replay(self) -> None:
        grid = self.query_one(DataTable)
        profile = self.app.model.profile  # type: ignore[attr-defined]
        if profile is None or not profile["recent"] or grid.cursor_row < 0:
            return
        game = profile["recent"][min(grid.cursor_row, len(profile["recent"]) - 1)]["game"]
        self.app.send_message({"t": "game_record", "game": int(game)})  # type: ignore[attr-defined]


class _ReplayHost:
    """What a table screen asks of its app, for a replay inside the app: the replay's own model;
    nothing is sent and no bell rings."""

    local = True

    def __init__(self, model: Model) -> None:
        self.model = model

    def send_action(self, code: str) -> None:
        return

    def send_message(self, message: dict[str, Any]) -> None:
        return

    def bell_if_wanted(self, end: bool = False) -> None:
        return

    def action_new_game(self) -> None:
        return

    def action_lobby(self) -> None:
        return


class ServerReplayScreen(TableScreen, inherit_bindings=False):
    """A finished game of the server, stepped through on the table screen."""

    BINDINGS = [
        Binding("right,space,n", "step(1)", "Next"),
        Binding("left,p", "step(-1)", "Previous"),
        Binding("pagedown", "step(10)", "+10", show=False),
        Binding("pageup", "step(-10)", "-10", show=False),
        Binding("home", "jump(0)", "Start"),
        Binding("end", "jump(-1)", "End"),
        Binding("escape,q", "close", "Close"),
        Binding("question_mark", "help", "Help"),
    ]

    def __init__(self, steps: dict[str, Any]) -> None:
        self.table = steps["table"]
        self.states: list[dict[str, Any]] = steps["states"]
        self.position = 0
        self.host = _ReplayHost(self._model_at(0))
        super().__init__()
        self._shown_game_over = (0, 1)  # the game is over; the replay shows its end without the dialog

    @property
    def ono(self) -> Any:  # the replay's host stands in for the app
        return self.host

    def _model_at(self, position: int) -> Model:
        model = Model(my_name="", connected=True)
        model.apply({"t": "table", "table": self.table})
        for state in self.states[:position + 1]:
            model.apply(state)
        return model

    def refresh_model(self, model: Model) -> None:  # the app's model is not this screen's
        super().refresh_model(self.host.model)
        self.show_text("#why", Text(f"step {self.position + 1} of {len(self.states)} — ←/→ step, Home/End jump, "
                                    "Esc close"))

    def action_step(self, delta: int) -> None:
        self.position = max(0, min(self.position + delta, len(self.states) - 1))
        self.host.model = self._model_at(self.position)
        self.refresh_model(self.host.model)

    def action_jump(self, where: int) -> None:
        self.action_step((where if where >= 0 else len(self.states) - 1) - self.position)

    def action_close(self) -> None:
        self.app.pop_screen()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())


def open_record(app: Ono99App, message: dict[str, Any]) -> None:
    """Show a ``game_record`` the server sent."""
    from .replay import replay_steps

    try:
        unpacker = zlib.decompressobj()
        text = unpacker.decompress(message["record"], MAX_RECORD_BYTES)
        if unpacker.unconsumed_tail:
            raise ValueError("the record is too large")
        steps = replay_steps(json.loads(text), f"Replay of game {message['game']}")
    except Exception as exc:  # a record this app cannot read: say so, keep going
        app.notify(f"Cannot replay game {message.get('game')}: {exc}", severity="error")
        return
    app.push_screen(ServerReplayScreen(steps))


def after_message(app: Ono99App, kind: str, message: dict[str, Any]) -> None:
    """The app's part for play now and ratings, after the model took ``message`` in."""
    if kind == "queue":
        if app.model.queue is not None and not any(isinstance(s, QueueScreen) for s in app.screen_stack):
            app.push_screen(QueueScreen())
    elif kind == "game_record":
        open_record(app, message)
    elif kind == "table" and any(isinstance(s, ServerReplayScreen) for s in app.screen_stack):
        # Seated (play now found a table) while watching a replay: to the table.
        while any(isinstance(s, ServerReplayScreen) for s in app.screen_stack):
            app.pop_screen()
        app._show(TableScreen)
