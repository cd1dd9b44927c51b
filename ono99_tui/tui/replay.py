"""``ono99 replay``: step through a recorded game with the table screen."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from rich.cells import cell_len
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import ProgressBar, Static
from textual.worker import get_current_worker

from ono99_kernel.core.errors import RecordError
from ono99_kernel.core.game import Game
from ono99_kernel.core.record import replay
from ono99_kernel.wire.requests import Request
from ono99_kernel.wire.server import (
    Seat,
    ServerMessage,
    State,
    TableDetail,
    TableMessage,
    decode_server_message,
    decode_table_detail,
    edition_of,
    event_of,
    view_of,
)

from ..analysis import Decision, SeatAnalysis, analyse
from ..analysis_words import decision_sentence, seat_summary
from ..client.model import Model
from ..i18n import N_
from ..i18n import gettext as _
from ..record_file import read_record, record_lines
from .help import HelpScreen
from .host import Rewinds, TableHost
from .rules_text import help_markdown
from .table import TableScreen
from .themes import MONO_THEME


def load_replay(path: Path, line: int = 1) -> dict[str, Any]:
    """The steps of record number ``line`` of a JSON Lines file: the table, then one state per action
    as each seat saw it (a record is public once the game is over: the viewer may follow any seat)."""
    record, count = read_record(path, line)
    try:
        return replay_steps(record, _("Replay of {file}, record {n} of {total}").format(
            file=path.name, n=line, total=count))
    except RecordError as exc:
        raise exc.at_line(line) from None


def replay_steps(record: Any, title: str) -> dict[str, Any]:
    """The steps of one record: the table (named ``title``), then one state per action as each seat
    saw it, as the maps a server would send (read back by the same decoder as a server's)."""
    seat_states: list[list[dict[str, Any]]] = []
    seen = 0

    def step(game: Game) -> None:
        nonlocal seen
        events = game.log[seen:]
        seen = len(game.log)
        while len(seat_states) < game.seats:
            seat_states.append([])
        for seat, states in enumerate(seat_states):
            state = State(table=0, game_no=1, view=view_of(game.view(seat)),
                          events=tuple(event_of(e.seen_by(seat)) for e in events), seq=None, clock=None,
                          controlled_by_bot=(False,) * game.seats)
            states.append(state.to_wire())

    done = replay(record, on_step=step, allow_unfinished=True)  # a game reported while it ran, say
    options = done.game.options
    outcome = done.game.outcome
    seats = tuple(Seat(kind="bot" if p.kind.startswith("bot") else "human", name=p.name, level=None, connected=True)
                  for p in done.players)
    table = TableDetail(id=0, name=title, edition=edition_of(options), options=options, summary=options.summary(),
                        host="", status="finished" if outcome is not None else "playing", private=False,
                        seats=seats, free=0,
                        bots=sum(1 for s in seats if s.kind == "bot"), spectators=0, replace_bots=False,
                        turn_seconds=0, bot_level="greedy", game_no=1,
                        winner=outcome.winner if outcome is not None else None, name_code=None, name_params={},
                        code=None, you=None, watchers=(), waiting=())
    return {"table": table.to_wire(), "states": seat_states[0], "seat_states": seat_states, "record": record}


class ReplayCursor:
    """Where a viewer is in a record: the seat whose cards are shown and the step, with the model
    of that moment. Also what a table screen asks of its app, for a replay: nothing is sent and no
    bell rings. ``ReplayApp`` is one (``ono99 replay``); the app's replay of a server's game holds
    one of its own (profile.py)."""

    local = True
    file: Path | None = None  # the file of ``ono99 replay``, whose other records [ and ] show
    line = 1  # which record of it, from 1
    records = 1  # how many it holds

    def setup_cursor(self, replay_data: dict[str, Any], seat: int = 0) -> None:
        self.table: dict[str, Any] = replay_data["table"]
        self.seat_states: list[list[dict[str, Any]]] = replay_data.get("seat_states") or [replay_data["states"]]
        self.seat = seat if 0 <= seat < len(self.seat_states) else 0  # whose cards are shown
        self._decoded: dict[int, list[ServerMessage]] = {}  # by seat: its states, decoded once
        self.states = self.seat_states[self.seat]
        self.position = 0
        self.model = self._model_at(0)
        self.record: Mapping[str, Any] | None = replay_data.get("record")  # what an analysis reads
        self.analyses: dict[int, SeatAnalysis] = {}  # by seat, once analysed

    def _model_at(self, position: int) -> Model:
        """The model after the steps up to ``position``; the steps are messages as a server would send
        them, read by the same decoder (a record that does not make valid messages fails here)."""
        decoded = self._decoded.get(self.seat)
        if decoded is None:
            decoded = self._decoded[self.seat] = [decode_server_message(state) for state in self.states]
        model = Model(my_name="", connected=True, replay=True)
        model.apply(TableMessage(table=decode_table_detail(self.table)))
        for state in decoded[:position + 1]:
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
        self.show_step()

    def show_step(self) -> None:
        """Draw the step now in ``model``."""

    def other_record(self, step: int) -> str | None:
        """Show the record ``step`` records on in the file, from its first step; a faulty one is
        passed over. What to tell the viewer, or None."""
        if self.file is None:
            return None
        line, skipped = self.line + step, []
        while 1 <= line <= self.records:
            try:
                data = load_replay(self.file, line)
            except (OSError, RecordError) as exc:
                skipped.append(exc.describe(_) if isinstance(exc, RecordError) else str(exc))
                line += step
                continue
            self.line = line
            self.setup_cursor(data)
            self.show_step()
            return _("Passed over a faulty record: {error}").format(error=skipped[-1]) if skipped else None
        return (_("This is the last record of the file.") if step > 0 else
                _("This is the first record of the file."))

    # the table screen's hooks: a replay sends nothing and rings no bell
    def send_action(self, code: str) -> None:
        return

    def send_message(self, message: Request) -> None:
        return

    def bell_if_wanted(self, end: bool = False) -> None:
        return

    def action_new_game(self) -> None:
        return

    def action_lobby(self) -> None:
        return


REPLAY_KEYS = N_(
    "## Replay keys\n"
    "| key | what it does |\n"
    "|---|---|\n"
    "| → or Space / ← | one step on / back |\n"
    "| PageDown / PageUp | ten steps on / back |\n"
    "| Home / End | the first / the last step |\n"
    "| Tab | follow the next seat's cards |\n"
    "| ? | this help (Esc closes it) |"
)
ANALYSIS_KEYS = N_(
    "| a | analyse the followed seat's moves: a plot of its chances, move by move, and its marked moves "
    "(? inaccuracy, x mistake, X blunder; ^ where the replay is) |\n"
    "| m | the next marked move |"
)
RECORD_KEYS = N_("| ] / [ | the next / the previous record of the file |")
QUIT_KEY = N_("| q | quit |")
CLOSE_KEY = N_("| Esc or q | close the replay |")


class ReplayScreen(TableScreen, inherit_bindings=False):
    BINDINGS = [
        Binding("right,space,n", "step(1)", N_("Next")),
        Binding("left,p", "step(-1)", N_("Previous")),
        Binding("pagedown", "step(10)", "+10", show=False),
        Binding("pageup", "step(-10)", "-10", show=False),
        # Home and End are said under the cards: the footer keeps room for ] and ? at 80 columns
        Binding("home", "jump(0)", N_("Start"), show=False),
        Binding("end", "jump(-1)", N_("End"), show=False),
        Binding("tab", "follow", N_("Next seat")),
        Binding("a", "analyse", N_("Analyse"), show=False),  # said in the help: the footer is full at 80 columns
        Binding("m", "next_mark", N_("Next mark"), show=False),
        Binding("right_square_bracket", "record(1)", N_("Next record")),
        Binding("left_square_bracket", "record(-1)", N_("Previous record"), show=False),
        Binding("question_mark", "help", N_("Help")),
        Binding("q", "app.quit", N_("Quit")),
    ]
    LAST_KEY = QUIT_KEY

    def on_mount(self) -> None:
        self.query_one("#chat-box").display = False  # nobody chats in a replay
        self.query_one("#bottom").mount(AnalysisPanel())  # shown once the a key asks for it

    # --- the analysis of the followed seat ---------------------------------------------------------
    def action_analyse(self) -> None:
        """Show the analysis panel and analyse the followed seat (once: it is kept per seat)."""
        panel = self.query_one(AnalysisPanel)
        panel.display = True
        self.query_one("#log").display = False  # the panel takes the bottom: the plot beside its words
        self._analyse_followed()

    def _analyse_followed(self) -> None:
        cursor = self.replay
        panel = self.query_one(AnalysisPanel)
        if not panel.display:
            return
        seat, record = cursor.seat, cursor.record
        if record is None or seat in cursor.analyses:
            self.show_analysis()
            return
        panel.running(self.replay.model.plain_name(seat))
        self.run_worker(lambda: self._analyse_in_thread(cursor, record, seat), thread=True, exclusive=True,
                        group="analysis")

    def _analyse_in_thread(self, cursor: ReplayCursor, record: Mapping[str, Any], seat: int) -> None:
        """The search, off the event loop: seconds of CPU work. Progress and the result go back to it."""
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            if worker.is_cancelled:
                raise _Stopped
            try:
                self.app.call_from_thread(self.query_one(AnalysisPanel).progress, done, total)
            except RuntimeError:  # the app is closing
                raise _Stopped from None

        try:
            found = analyse(record, [seat], on_progress=progress)
            self.app.call_from_thread(self._analysed, cursor, record, seat, found.seats[0])
        except (_Stopped, RuntimeError):
            return

    def _analysed(self, cursor: ReplayCursor, record: Mapping[str, Any], seat: int, found: SeatAnalysis) -> None:
        if cursor.record is record:  # not another record of the file meanwhile
            cursor.analyses[seat] = found
            self.show_analysis()

    def show_analysis(self) -> None:
        """The panel for the followed seat at the step on screen (nothing while it is hidden)."""
        panel = self.query_one(AnalysisPanel)
        if not panel.display:
            return
        cursor = self.replay
        found = cursor.analyses.get(cursor.seat)
        if found is None:
            if cursor.record is None:
                panel.say(_("This replay has no record to analyse."))
            return
        edition = str(cursor.record.get("edition", "")) if cursor.record is not None else ""
        panel.show(found, cursor.position, edition)

    def action_next_mark(self) -> None:
        """Go to the next marked move of the followed seat (from the first after the last)."""
        cursor = self.replay
        found = cursor.analyses.get(cursor.seat)
        if found is None:
            self.notify(_("Press a to analyse the moves first."), timeout=4, markup=False)
            return
        marked = [d.step for d in found.decisions if d.mark is not None]
        if not marked:
            self.notify(_("No move of {name} is marked.").format(name=found.name), timeout=4, markup=False)
            return
        later = [step for step in marked if step > cursor.position]
        cursor.go_to(later[0] if later else marked[0])

    def footer_shows(self, action: str) -> bool:
        if action.partition("(")[0] == "record":  # only with a file of more than one record
            return self.replay.file is not None and self.replay.records > 1
        return super().footer_shows(action)

    def action_record(self, step: int) -> None:
        line = self.replay.line
        said = self.replay.other_record(step)
        if self.replay.line != line:
            self._shown_game_over = None  # this record's end has a result of its own
            self.refresh_model(self.replay.model)
            self._analyse_followed()
        if said:
            self.notify(said, timeout=4, markup=False)

    @property
    def replay(self) -> ReplayCursor:
        """The record and where the viewer is in it: the app's, for ``ono99 replay``."""
        return cast(ReplayApp, self.app)

    def action_step(self, delta: int) -> None:
        self.replay.go_to(self.replay.position + delta)

    def action_jump(self, where: int) -> None:
        self.replay.go_to(where if where >= 0 else len(self.replay.states) - 1)

    def action_follow(self) -> None:
        self.replay.follow((self.replay.seat + 1) % len(self.replay.seat_states))
        self._analyse_followed()

    def action_help(self) -> None:
        """The replay's own keys, then the rules."""
        keys = [_(REPLAY_KEYS), _(ANALYSIS_KEYS)]
        if self.footer_shows("record"):
            keys.append(_(RECORD_KEYS))
        keys.append(_(self.LAST_KEY))
        self.app.push_screen(HelpScreen("\n".join(keys) + "\n\n" + help_markdown()))

    def refresh_model(self, model: Model) -> None:
        model = self.replay.model  # the replay's model, at its step
        if model is not getattr(self, "_model_shown", None):  # another step: the log is written afresh
            self._model_shown = model
            self._log_epoch = -1
        super().refresh_model(model)
        replay = self.replay
        where = _("step {n} of {total} · following {name}'s cards (tab: next seat) · {keys}")
        fields = {"n": replay.position + 1, "total": len(replay.states), "name": model.plain_name(replay.seat),
                  "keys": _(self.STEP_KEYS)}
        said = where.format(**fields)
        if cell_len(said) > self.size.width - 2:  # one line, so the bottom keeps its rows: the keys are in ?
            said = where.replace(" · {keys}", "").format(**fields)
        self.show_text("#why", Text(said))
        if self.query(AnalysisPanel):
            self.show_analysis()

    STEP_KEYS = N_("←/→ step, Home/End")


class _Stopped(Exception):
    """An analysis no longer wanted (its screen closed, another one started)."""


# Under each move of the plot: its mark (the help says them), or ^ at the move on screen.
PLOT_MARKS = {"inaccuracy": "?", "mistake": "x", "blunder": "X"}
_BARS = "▁▂▃▄▅▆▇█"


class AnalysisPanel(Vertical):
    """The followed seat's analysis: a plot of its chances move by move (the chance of the move it made,
    one column per decision), its marks under it, and the decision on screen in words."""

    DEFAULT_CSS = """
    AnalysisPanel {
        width: 1fr;
        height: 1fr;
        border: round $foreground 30%;
        padding: 0 1;
        display: none;
    }
    AnalysisPanel ProgressBar { height: 1; }
    AnalysisPanel #analysis-row { height: 1fr; }
    AnalysisPanel #analysis-plot { height: 2; width: 24; margin: 0 1 0 0; }
    AnalysisPanel #analysis-text { height: auto; width: 1fr; }
    """

    def compose(self) -> ComposeResult:
        yield ProgressBar(id="analysis-progress", show_eta=False)
        with Horizontal(id="analysis-row"):  # at 80×24 the bottom has two lines: the plot and its words side by side
            yield Static(id="analysis-plot", markup=False)
            yield Static(id="analysis-text", markup=False)

    def running(self, name: str) -> None:
        self.border_title = _("Analysing {name}'s moves…").format(name=name)
        bar = self.query_one(ProgressBar)
        bar.display = True
        bar.update(total=None, progress=0)
        self.query_one("#analysis-plot", Static).update("")
        self.query_one("#analysis-text", Static).update("")

    def progress(self, done: int, total: int) -> None:
        self.query_one(ProgressBar).update(total=max(total, 1), progress=done)

    def say(self, text: str) -> None:
        self.query_one(ProgressBar).display = False
        self.query_one("#analysis-text", Static).update(text)

    def show(self, found: SeatAnalysis, position: int, edition: str) -> None:
        self.border_title = _("Analysis of {name}'s moves").format(name=found.name)
        self.query_one(ProgressBar).display = False
        decisions = found.decisions
        now = -1  # the last decision at or before the step on screen
        for i, decision in enumerate(decisions):
            if decision.step <= position:
                now = i
        plot_widget = self.query_one("#analysis-plot", Static)
        plot_widget.styles.width = width = min(24, max(len(decisions), 4))  # the words get the rest of the line
        start = max(0, min(now - width // 2, len(decisions) - width))
        shown = decisions[start:start + width]
        bars = "".join(_BARS[min(int(d.chance_played * len(_BARS)), len(_BARS) - 1)] for d in shown)
        marks = "".join("^" if start + i == now and d.mark is None else PLOT_MARKS.get(d.mark or "", " ")
                        for i, d in enumerate(shown))
        plot = Text(bars + "\n" + marks)
        if 0 <= now - start < len(shown):
            plot.stylize("reverse", now - start, now - start + 1)
        plot_widget.update(plot)
        current: Decision | None = decisions[now] if now >= 0 and decisions[now].step == position else None
        if current is not None:
            said = decision_sentence(current, found.name, edition)
        elif not decisions:
            said = _("{name} had no choice to make in this game.").format(name=found.name)
        else:
            said = seat_summary(found) + " · " + _("m: the next marked move")
        self.query_one("#analysis-text", Static).update(said)


class ReplayApp(ReplayCursor, App[None]):
    CSS_PATH = "ono99.tcss"
    TITLE = "ONO 99 replay"
    ENABLE_COMMAND_PALETTE = False  # English only (as in the game app)
    BINDINGS = [Binding("ctrl+q", "quit", N_("Quit"), priority=True, show=False)]

    def __init__(self, replay_data: dict[str, Any], file: Path | None = None, line: int = 1) -> None:
        super().__init__()
        self.setup_cursor(replay_data)
        if file is not None:
            self.file, self.line, self.records = file, line, len(record_lines(file))

    def on_mount(self) -> None:
        self.register_theme(MONO_THEME)
        self.push_screen(ReplayScreen())

    def show_step(self) -> None:
        screen = self.screen
        if isinstance(screen, ReplayScreen):
            screen.refresh_model(self.model)


class ServerReplayScreen(ReplayScreen, inherit_bindings=False):
    """A finished game of the server, stepped through on the table screen inside the app: the same
    screen as ``ono99 replay``, with a replay cursor of its own, closed with Esc."""

    BINDINGS = [*(b for b in ReplayScreen.BINDINGS if isinstance(b, Binding) and b.action != "app.quit"),
                Binding("escape,q", "close", N_("Close"))]
    STEP_KEYS = N_("←/→ step, Home/End jump, Esc close")
    LAST_KEY = CLOSE_KEY

    def __init__(self, steps: dict[str, Any], analyse_seat: int | None = None, seat: int = 0) -> None:
        self.cursor = _ScreenCursor(self, steps, seat if analyse_seat is None else analyse_seat)
        super().__init__()
        self._shown_game_over = (0, 1)  # the game is over; the replay shows its end without the dialog
        self.analyse_seat = analyse_seat  # whose analysis opens with the screen (the game just played)

    def on_mount(self) -> None:
        if self.analyse_seat is not None:  # once ReplayScreen's on_mount (called after this one) put the panel in
            self.call_after_refresh(self.action_analyse)

    @property
    def replay(self) -> ReplayCursor:
        return self.cursor

    @property
    def ono(self) -> Any:  # the replay's cursor stands in for the app
        return self.cursor

    @property
    def position(self) -> int:
        return self.cursor.position

    @property
    def states(self) -> list[dict[str, Any]]:
        return self.cursor.states

    def action_close(self) -> None:
        self.app.pop_screen()


class _ScreenCursor(ReplayCursor):
    """A replay cursor that draws on its screen (not the app's screen)."""

    def __init__(self, screen: ServerReplayScreen, steps: dict[str, Any], seat: int = 0) -> None:
        self.screen = screen
        self.setup_cursor(steps, seat)

    def show_step(self) -> None:
        self.screen.refresh_model(self.model)


def analysis_screen(record: Mapping[str, Any], title: str, seat: int) -> ServerReplayScreen:
    """The replay of ``record`` over the app, from the deal, with the analysis of ``seat``'s moves open."""
    return ServerReplayScreen(replay_steps(record, title), analyse_seat=seat)


def make_replay_app(replay_data: dict[str, Any], file: Path | None = None, line: int = 1) -> ReplayApp:
    """The replay of ``ono99 replay``; with the ``file`` it came from (record ``line``), [ and ] show
    the file's other records."""
    return ReplayApp(replay_data, file, line)


if TYPE_CHECKING:  # what the screens take ono99 replay's app and a replay's cursor for (host.py)
    _REPLAY_APP: type[TableHost] = ReplayApp
    _REWINDS: type[Rewinds] = ReplayApp
    _CURSOR: type[TableHost] = _ScreenCursor
