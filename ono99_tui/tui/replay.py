"""``ono99 replay``: step through a recorded game with the table screen."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import App
from textual.binding import Binding

from .. import text as words
from ..core.errors import RecordError
from ..core.game import Game
from ..core.record import replay
from ..protocol import event_to_wire, view_to_wire
from .app import MONO_THEME
from .model import Model
from .screens import HelpScreen, TableScreen


def load_replay(path: Path, line: int = 1) -> dict[str, Any]:
    """The steps of record number ``line`` of a JSON Lines file: the table, then one state per action
    as each seat saw it (a record is public once the game is over: the viewer may follow any seat)."""
    lines = [text for text in path.read_text(encoding="utf-8").splitlines() if text.strip()]
    if not 1 <= line <= len(lines):
        raise RecordError(f"the file holds {words.records(len(lines))}; there is no record {line}")
    try:
        record = json.loads(lines[line - 1])
    except json.JSONDecodeError as exc:
        raise RecordError(f"not valid JSON: {exc}", line=line) from None
    try:
        return replay_steps(record, f"Replay of {path.name}, record {line} of {len(lines)}")
    except RecordError as exc:
        raise exc.at_line(line) from None


def replay_steps(record: Any, title: str) -> dict[str, Any]:
    """The steps of one record: the table (named ``title``), then one state per action as each seat
    saw it."""
    seat_states: list[list[dict[str, Any]]] = []
    seen = 0

    def step(game: Game) -> None:
        nonlocal seen
        events = game.log[seen:]
        seen = len(game.log)
        while len(seat_states) < game.seats:
            seat_states.append([])
        for seat, states in enumerate(seat_states):
            states.append({"t": "state", "table": 0, "game_no": 1, "clock": None,
                           "view": view_to_wire(game.view(seat)),
                           "events": [event_to_wire(e.seen_by(seat)) for e in events]})

    done = replay(record, on_step=step)
    players = done.players
    table = {"id": 0, "name": title, "summary": done.game.options.summary(),
             "edition": done.game.options.edition.value, "host": "",
             "seats": [{"kind": "bot" if p.kind.startswith("bot") else "human", "name": p.name,
                        "level": None, "connected": True} for p in players]}
    return {"table": table, "states": seat_states[0], "seat_states": seat_states}


class ReplayScreen(TableScreen, inherit_bindings=False):
    BINDINGS = [
        Binding("right,space,n", "step(1)", "Next"),
        Binding("left,p", "step(-1)", "Previous"),
        Binding("pagedown", "step(10)", "+10", show=False),
        Binding("pageup", "step(-10)", "-10", show=False),
        Binding("home", "jump(0)", "Start"),
        Binding("end", "jump(-1)", "End"),
        Binding("tab", "follow", "Next seat"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "app.quit", "Quit"),
    ]

    def action_step(self, delta: int) -> None:
        app: ReplayApp = self.app  # type: ignore[assignment]
        app.go_to(app.position + delta)

    def action_jump(self, where: int) -> None:
        app: ReplayApp = self.app  # type: ignore[assignment]
        app.go_to(where if where >= 0 else len(app.states) - 1)

    def action_follow(self) -> None:
        app: ReplayApp = self.app  # type: ignore[assignment]
        app.follow((app.seat + 1) % len(app.seat_states))

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def refresh_model(self, model: Model) -> None:
        if model is not getattr(self, "_model_shown", None):  # another step: the log is written afresh
            self._model_shown = model
            self._log_epoch = -1
        super().refresh_model(model)
        app: ReplayApp = self.app  # type: ignore[assignment]
        self.show_text("#why", Text(f"step {app.position + 1} of {len(app.states)} · following "
                                    f"{model.plain_name(app.seat)}'s cards (tab: next seat) · ←/→ step, Home/End"))


class ReplayApp(App[None]):
    CSS_PATH = "ono99.tcss"
    TITLE = "ONO 99 replay"
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True, show=False)]

    def __init__(self, replay_data: dict[str, Any]) -> None:
        super().__init__()
        self.table = replay_data["table"]
        self.seat_states: list[list[dict[str, Any]]] = replay_data.get("seat_states") or [replay_data["states"]]
        self.seat = 0  # whose cards are shown
        self.states = self.seat_states[0]
        self.position = 0
        self.model = self._model_at(0)
        self.local = True

    def on_mount(self) -> None:
        self.register_theme(MONO_THEME)
        self.push_screen(ReplayScreen())

    def _model_at(self, position: int) -> Model:
        model = Model(my_name="", connected=True, replay=True)
        model.apply({"t": "table", "table": self.table})
        for state in self.states[:position + 1]:
            model.apply(state)
        return model

    def follow(self, seat: int) -> None:
        """Show the game through ``seat``'s eyes, at the same step."""
        self.seat = seat
        self.states = self.seat_states[seat]
        self.go_to(self.position)

    def go_to(self, position: int) -> None:
        self.position = max(0, min(position, len(self.states) - 1))
        self.model = self._model_at(self.position)
        screen = self.screen
        if isinstance(screen, ReplayScreen):
            screen.refresh_model(self.model)

    # the table screen's hooks: a replay sends nothing and rings no bell
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


def make_replay_app(replay_data: dict[str, Any]) -> ReplayApp:
    return ReplayApp(replay_data)
