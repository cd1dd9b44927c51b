"""The screens of the terminal app."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, on
from textual._context import NoActiveAppError
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import (
    Button,
    DataTable,
    Digits,
    Input,
    Label,
    Markdown,
    RichLog,
    Select,
    Static,
    Switch,
)

from ..bots import BOT_LEVELS
from .model import Model
from .rules_text import HELP_MARKDOWN
from .widgets import Banner, CardWidget, HandView, KeysFooter, SeatsView, StatusLine, show_text

if TYPE_CHECKING:
    from .app import Ono99App


class ModelScreen(Screen[None]):
    """A screen that renders the app's model.

    Widgets are updated only when what they show changes: each update costs a repaint, and with
    a layout a pass over the whole screen (an SSH server draws every session's screens on one
    event loop).
    """

    def __init__(self) -> None:
        super().__init__()
        self._resumed = False
        self._resized = False
        self._preset_breakpoints()

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        # Textual styles every widget of a screen again each time it comes to the top; the first
        # time, they were styled when they were mounted, a moment before. Textual calls
        # Screen's own handler after this one (handlers run for each class of the MRO).
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False

    def _on_resize(self, event: events.Resize) -> None:
        # A screen's first layout sends the screen a Resize of the size it was just laid out at,
        # which would lay it out and draw it a second time; any later Resize is a real one.
        if not self._resized and event.size == self.size:
            event.prevent_default()  # Screen's own handler: nothing to do at this size
        self._resized = True

    def _preset_breakpoints(self) -> None:
        """Start with the width class Textual would add on the first resize, so that the screen
        is not styled a second time, and drawn twice, when it is first shown."""
        try:
            width = self.app.size.width
        except NoActiveAppError:
            return
        breakpoints = self.HORIZONTAL_BREAKPOINTS or self.app.HORIZONTAL_BREAKPOINTS or []
        fitting = [(low, name) for low, name in breakpoints if width >= low]
        chosen = max(fitting)[1] if fitting else None
        for _, name in breakpoints:
            self.set_class(name == chosen, name, update=False)

    @property
    def ono(self) -> Ono99App:
        return self.app  # type: ignore[return-value]

    def refresh_model(self, model: Model) -> None:
        """Render the model (called after every server message)."""

    def show_text(self, selector: str, text: Text, *, fixed_size: bool = True) -> None:
        """Put ``text`` in the Static ``selector`` unless it shows that already (``show_text``)."""
        show_text(self.query_one(selector, Static), text, fixed_size=fixed_size)


# --- the table ------------------------------------------------------------------------------------------
class TableScreen(ModelScreen):
    AUTO_FOCUS = None  # keys go to the hand; the chat input takes focus only with c
    BINDINGS = [
        Binding("1", "play(0)", "Play 1", show=False),
        Binding("2", "play(1)", "Play 2", show=False),
        Binding("3", "play(2)", "Play 3", show=False),
        Binding("4", "play(3)", "Play 4", show=False),
        Binding("left", "select(-1)", "Select", show=False),
        Binding("right", "select(1)", "Select", show=False),
        Binding("enter", "play_selected", "Play"),
        Binding("f", "discard_four", "Four ONO 99", show=False),
        Binding("d", "draw", "Draw"),
        Binding("s", "start", "Start", show=False),
        Binding("c", "focus_chat", "Chat"),
        Binding("escape", "focus_hand", "Hand", show=False),
        Binding("n", "new_game", "New game"),
        Binding("l", "lobby", "Lobby"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.selected = 0
        self._log_written = 0
        self._was_my_turn = False
        self._log_epoch = -1
        self._chat_written = 0
        self._shown_game_over = -1

    def compose(self) -> ComposeResult:
        yield Static(id="title", markup=False)
        yield SeatsView(id="seats", markup=False)
        with Horizontal(id="middle"):
            yield Digits("0", id="total")
            with Vertical(id="side"):
                yield Banner(id="banner", markup=False)
                yield StatusLine(id="status", markup=False)
        yield HandView(id="hand")
        yield Static(id="why", markup=False)
        with Horizontal(id="bottom"):
            yield RichLog(id="log", wrap=True, markup=False, highlight=False, max_lines=200)
            with Vertical(id="chat-box"):
                yield RichLog(id="chat", wrap=True, markup=False, highlight=False, max_lines=200)
                yield Input(placeholder="chat (c)", id="chat-input", max_length=300)
        yield KeysFooter()

    def on_mount(self) -> None:
        for log in self.query(RichLog):
            log.can_focus = False  # arrows and digits belong to the hand
        self.query_one("#chat-input", Input).can_focus = False  # until c is pressed
        self.refresh_model(self.ono.model)
        self.set_focus(None)
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        """Count the turn clock down between server messages."""
        if self.ono.model.clock is not None:
            self.query_one(StatusLine).show(self.ono.model)

    def refresh_model(self, model: Model) -> None:
        table = model.table or {}
        title = Text()
        title.append(str(table.get("name", "Table")), style="bold")
        title.append(f"  ·  {table.get('summary', model.edition)}")
        if model.view is not None and model.view["seat"] is None:
            title.append("  ·  spectating")
        if not model.connected:
            title.append("  ·  CONNECTION LOST, reconnecting…", style="bold reverse")
        self.show_text("#title", title)
        self.query_one(SeatsView).show(model)
        view = model.view
        total = self.query_one("#total", Digits)
        if total.value != (shown := str(view["total"]) if view else "0"):
            total.update(shown)
        self.query_one(Banner).show(model)
        self.query_one(StatusLine).show(model)
        hand = view["hand"] if view else []
        if hand:
            self.selected = min(self.selected, len(hand) - 1)
            if model.my_turn and not self._was_my_turn:  # a new turn: select the first playable card
                self.selected = next((i for i, c in enumerate(hand) if c in view["legal"]), self.selected)
        self._was_my_turn = model.my_turn
        self.query_one(HandView).show(model, self.selected)
        self._write_new_lines(model)
        if view is not None and view["winner"] is not None and self._shown_game_over != model.game_no:
            self._shown_game_over = model.game_no
            self.ono.bell_if_wanted(end=True)
            self.app.push_screen(GameOverScreen())

    def _write_new_lines(self, model: Model) -> None:
        log = self.query_one("#log", RichLog)
        if model.log_epoch != self._log_epoch:
            log.clear()
            self._log_epoch = model.log_epoch
            self._log_written = model.log_count - len(model.log)
        fresh = model.log_count - self._log_written
        append_lines(log, [Text(line) for line in (list(model.log)[-fresh:] if fresh > 0 else [])])
        self._log_written = model.log_count
        chat = self.query_one("#chat", RichLog)
        fresh = model.chat_count - self._chat_written
        lines = []
        for entry in list(model.chat)[-fresh:] if fresh > 0 else []:
            line = Text()
            line.append(Text(entry.sender, style="bold"))
            line.append(": ")
            line.append(Text(entry.text))
            lines.append(line)
        append_lines(chat, lines)
        self._chat_written = model.chat_count

    # --- actions -------------------------------------------------------------------------------------
    def action_select(self, step: int) -> None:
        view = self.ono.model.view
        if view and view["hand"]:
            self.selected = (self.selected + step) % len(view["hand"])
            self.refresh_model(self.ono.model)

    def action_play(self, index: int) -> None:
        model = self.ono.model
        view = model.view
        if view is None or index >= len(view["hand"]):
            return
        self.selected = index
        code = view["hand"][index]
        reason = model.reason_for(code)
        if reason is not None:
            self.show_text("#why", Text(f"Can't play {code}: {reason}"))
            self.refresh_model(model)
            return
        self.show_text("#why", Text())
        self.ono.send_action(code)

    def action_play_selected(self) -> None:
        self.action_play(self.selected)

    def action_discard_four(self) -> None:
        if self.ono.model.view and "ONO99x4" in self.ono.model.view["legal"]:
            self.ono.send_action("ONO99x4")

    def action_draw(self) -> None:
        if self.ono.model.can_draw:
            self.ono.send_action("draw")
        else:
            self.show_text("#why", Text("There is no draw to take."))

    def action_start(self) -> None:
        """The host starts the game (or a rematch); empty seats get bots."""
        table = self.ono.model.table or {}
        if table.get("status") == "playing":
            return
        self.ono.send_message({"t": "rematch" if table.get("status") == "finished" else "start"})

    def action_focus_chat(self) -> None:
        chat = self.query_one("#chat-input", Input)
        chat.can_focus = True
        chat.focus()

    def action_focus_hand(self) -> None:
        self.query_one("#chat-input", Input).can_focus = False
        self.set_focus(None)

    def action_new_game(self) -> None:
        self.ono.action_new_game()

    def action_lobby(self) -> None:
        self.ono.action_lobby()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    @on(CardWidget.Chosen)
    def card_clicked(self, message: CardWidget.Chosen) -> None:
        self.action_play(message.index)

    @on(Input.Submitted, "#chat-input")
    def chat_sent(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.ono.send_message({"t": "chat", "text": event.value, "scope": "table"})
        event.input.value = ""
        self.action_focus_hand()


def append_lines(log: RichLog, lines: list[Text]) -> None:
    """Write lines at the end of a log and show them in the same frame: the log's own scrolling
    waits for the next frame, which draws the log twice."""
    if not lines:
        return
    if not log._size_known:  # the log writes them once it has a size, and scrolls then
        for line in lines:
            log.write(line)
        return
    for line in lines:
        log.write(line, scroll_end=False)
    log.scroll_end(animate=False, immediate=True, x_axis=False)  # its height is known: the end is too


# --- end of game ------------------------------------------------------------------------------------------
class GameOverScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss", "Close"), Binding("r", "rematch", "Rematch"),
                Binding("p", "play_now", "Play now")]

    def compose(self) -> ComposeResult:
        model: Model = self.app.model  # type: ignore[attr-defined]
        view = model.view or {}
        winner = view.get("winner")
        with Vertical(id="dialog", classes="gameover"):
            yield Label(Text(f"{model.seat_name(winner)} wins!"), id="winner")
            lines = Text()
            for place, seat in enumerate(model.ranking(), start=1):
                lines.append(f"{place}. ")
                lines.append(Text(model.seat_name(seat)))
                if view.get("tokens") is not None:
                    lines.append(f"  {view['tokens'][seat]} tokens")
                if view.get("scores") is not None:
                    lines.append(f"  {view['scores'][seat]} points")
                lines.append("\n")
            yield Static(lines, id="ranking", markup=False)
            with Horizontal(id="buttons"):
                yield Button("Rematch (r)", id="rematch", variant="primary")
                yield Button("Close (esc)", id="close")
        yield KeysFooter()

    @on(Button.Pressed, "#rematch")
    def action_rematch(self) -> None:
        self.app.send_message({"t": "rematch"})  # type: ignore[attr-defined]
        self.dismiss()

    @on(Button.Pressed, "#close")
    def close_pressed(self) -> None:
        self.dismiss()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # play now is for a server's tables: a local game or a replay has nobody to meet
        return action != "play_now" or not getattr(self.app, "local", True)

    def action_play_now(self) -> None:
        """Leave this table for the play-now queue."""
        app: Any = self.app
        edition, seats = app.play_now_wish
        app.send_message({"t": "leave"})
        app.send_message({"t": "play_now", "edition": edition, "seats": seats})
        self.dismiss()


# --- help --------------------------------------------------------------------------------------------------
class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss", "Close"), Binding("question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Markdown(HELP_MARKDOWN)
        yield KeysFooter()


# --- new game ---------------------------------------------------------------------------------------------
BOOL_OPTIONS = [
    ("manual_draw", "Manual draw (you draw yourself; the next play takes it away)"),
    ("eight_players", "2022 house rule: up to 8 players"),
    ("bust_over_99", "1980: only going over 99 loses"),
    ("ono99_on_zero", "1980: O'NO 99 playable when the total ends in 0"),
    ("ono99_sets_99", "1980: O'NO 99 sets the total to 99 (needs the rule above)"),
    ("out_at_zero_tokens", "1980 tokens: out as soon as the last token is lost"),
]


class NewGameScreen(ModalScreen[dict[str, Any] | None]):
    """Choose edition, options, seats and bots; returns a create_table message."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, local: bool) -> None:
        super().__init__()
        self.local = local

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Label("New game", id="dialog-title")
            with Horizontal(classes="row"):
                yield Label("Edition")
                yield Select([("2022 (Mattel)", "2022"), ("1980 (O'NO 99)", "1980")], value="2022",
                             allow_blank=False, id="edition")
            with Horizontal(classes="row"):
                yield Label("Players")
                yield Select([(str(n), n) for n in range(2, 9)], value=4, allow_blank=False, id="seats")
            with Horizontal(classes="row"):
                yield Label("Bots")
                yield Select([(str(n), n) for n in range(0, 8)], value=3 if self.local else 0,
                             allow_blank=False, id="bots")
            with Horizontal(classes="row"):
                yield Label("Bot level")
                yield Select([(f"{level.name}: {level.description}", level.name) for level in BOT_LEVELS.values()],
                             value="greedy", allow_blank=False, id="bot_level")
            with Horizontal(classes="row"):
                yield Label("1980 scoring")
                yield Select([("tokens", "tokens"), ("points", "points")], value="tokens", allow_blank=False,
                             id="scoring")
            with Horizontal(classes="row"):
                yield Label("Points target")
                yield Input("100", id="points_target", type="integer")
            with Horizontal(classes="row"):
                yield Label("Points win")
                yield Select([("last standing", "last_standing"), ("lowest score", "lowest_score")],
                             value="last_standing", allow_blank=False, id="points_win")
            for name, label in BOOL_OPTIONS:
                with Horizontal(classes="row"):
                    yield Switch(False, id=name)
                    yield Label(label)
            if not self.local:
                with Horizontal(classes="row"):
                    yield Label("Turn clock (s)")
                    yield Input("30", id="turn_seconds", type="integer")
                with Horizontal(classes="row"):
                    yield Switch(False, id="private")
                    yield Label("Private (join by invite code)")
            yield Static(id="problem", markup=False)
            with Horizontal(id="buttons"):
                yield Button("Start", id="start", variant="primary")
                yield Button("Cancel", id="cancel")

    def _message(self) -> dict[str, Any]:
        edition = self.query_one("#edition", Select).value
        options: dict[str, Any] = {}
        for name, _ in BOOL_OPTIONS:
            if self.query_one(f"#{name}", Switch).value:
                options[name] = True
        if edition == "1980":
            options["scoring"] = self.query_one("#scoring", Select).value
            if options["scoring"] == "points":
                options["points_target"] = int(self.query_one("#points_target", Input).value or 100)
                options["points_win"] = self.query_one("#points_win", Select).value
        message: dict[str, Any] = {
            "t": "create_table", "edition": edition, "options": options,
            "seats": self.query_one("#seats", Select).value, "bots": self.query_one("#bots", Select).value,
            "bot_level": self.query_one("#bot_level", Select).value,
        }
        if self.local:
            message.update(turn_seconds=0, start=True)
            message["bots"] = int(message["seats"]) - 1
        else:
            message["turn_seconds"] = int(self.query_one("#turn_seconds", Input).value or 0)
            message["private"] = self.query_one("#private", Switch).value
        return message

    @on(Button.Pressed, "#start")
    def start(self) -> None:
        message = self._message()
        from ono99_tui.core.errors import OptionError
        from ono99_tui.core.options import TableOptions

        try:
            TableOptions.from_mapping(message["edition"], message["options"]).check_players(message["seats"])
        except (OptionError, ValueError) as exc:
            self.query_one("#problem", Static).update(Text(str(exc)))
            return
        self.dismiss(message)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


# --- lobby -------------------------------------------------------------------------------------------------
class LobbyScreen(ModelScreen):
    BINDINGS = [
        Binding("p", "play_now", "Play now"),
        Binding("n", "new_table", "New table"),
        Binding("j,enter", "join", "Join"),
        Binding("s", "spectate", "Spectate"),
        Binding("i", "invite", "Invite code"),
        Binding("b", "leaderboard", "Leaderboard"),
        Binding("v", "profile", "Profile"),
        Binding("r", "refresh", "Refresh", show=False),  # the list updates by itself; r is for doubters
        Binding("question_mark", "help", "Help"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._rows: list[tuple[Any, ...]] | None = None

    def compose(self) -> ComposeResult:
        # The first content goes in at once: set after mounting, it would be drawn a second time.
        model = self.ono.model
        title, notice = self._title(model), self._notice(model)
        yield Static(title, id="title", markup=False)
        grid: DataTable[Any] = DataTable(id="tables", cursor_type="row", zebra_stripes=True)
        grid.add_columns("#", "name", "rules", "seats", "bots", "status", "watching")
        yield grid
        yield Static(notice, id="lobby-notice", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        self.refresh_model(self.ono.model)
        self.query_one(DataTable).focus()

    @staticmethod
    def _title(model: Model) -> Text:
        title = Text()
        title.append(model.server_name or "ONO 99", style="bold")
        title.append("  ·  you are ")
        title.append(model.my_name or "?", style="bold")
        if not model.connected:
            title.append("  ·  CONNECTION LOST, reconnecting…", style="bold reverse")
        return title

    @staticmethod
    def _notice(model: Model) -> Text:
        from .playnow import queue_line

        hint = "p: play now · Enter or j: join the selected table · s: watch it · n: new table · i: invite code"
        text = model.notice or ("No tables yet: press p to play now, n to create one." if not model.tables else hint)
        queues = queue_line(model)
        return Text(f"{text}\n{queues}" if queues else text)

    def refresh_model(self, model: Model) -> None:
        self.show_text("#title", self._title(model))
        rows = [(str(info["id"]), str(info["name"]), str(info["summary"]),
                 f"{sum(1 for s in info['seats'] if s['kind'] != 'empty')}/{len(info['seats'])}",
                 str(info["bots"]), str(info["status"]), str(info["spectators"])) for info in model.tables]
        if rows != self._rows:
            self._rows = rows
            grid = self.query_one(DataTable)
            keep = grid.cursor_row
            grid.clear()
            for row in rows:
                grid.add_row(row[0], Text(row[1]), Text(row[2]), *row[3:], key=row[0])
            if rows:
                grid.move_cursor(row=min(keep, len(rows) - 1))
        self.show_text("#lobby-notice", self._notice(model), fixed_size=False)  # its height follows its text

    def _selected_table(self) -> int | None:
        grid = self.query_one(DataTable)
        if not self.ono.model.tables or grid.cursor_row < 0:
            return None
        return int(self.ono.model.tables[min(grid.cursor_row, len(self.ono.model.tables) - 1)]["id"])

    def action_join(self) -> None:
        table = self._selected_table()
        if table is not None:
            self.ono.send_message({"t": "join", "table": table})

    @on(DataTable.RowSelected)
    def row_chosen(self) -> None:
        self.action_join()

    def action_spectate(self) -> None:
        table = self._selected_table()
        if table is not None:
            self.ono.send_message({"t": "spectate", "table": table})

    def action_new_table(self) -> None:
        self.ono.action_new_game()

    def action_invite(self) -> None:
        def joined(code: str | None) -> None:
            if code:
                self.ono.send_message({"t": "join", "code": code})

        self.app.push_screen(InviteScreen(), joined)

    def action_leaderboard(self) -> None:
        self.ono.send_message({"t": "leaderboard", "follow": True})  # updated after each game while open
        self.app.push_screen(LeaderboardScreen())

    def action_refresh(self) -> None:
        self.ono.send_message({"t": "list_tables"})

    def action_play_now(self) -> None:
        edition, seats = self.ono.play_now_wish
        self.ono.send_message({"t": "play_now", "edition": edition, "seats": seats})

    def action_profile(self) -> None:
        from .profile import ProfileScreen

        self.app.push_screen(ProfileScreen())

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())


class InviteScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Join a private table by its invite code")
            yield Input(placeholder="code, e.g. K7QX2M", id="code", max_length=16)

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class LeaderboardScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("a", "edition('')", "All"),
        Binding("2", "edition('2022')", "2022"),
        Binding("1", "edition('1980')", "1980"),
        Binding("enter", "profile", "Profile"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Leaderboard, by rating (? provisional)", id="leaders-title")
            yield DataTable(id="leaders", cursor_type="row")
        yield KeysFooter()

    def action_edition(self, edition: str) -> None:
        message: dict[str, Any] = {"t": "leaderboard", "follow": True}
        if edition:
            message["edition"] = edition
        self.app.send_message(message)  # type: ignore[attr-defined]

    async def action_dismiss(self, result: None = None) -> None:
        self.app.send_message({"t": "leaderboard", "follow": False})  # type: ignore[attr-defined]
        await super().action_dismiss(result)

    def on_mount(self) -> None:
        grid = self.query_one(DataTable)
        grid.add_columns("player", "rating", "wins", "games")
        self.refresh_model(self.app.model)  # type: ignore[attr-defined]

    def refresh_model(self, model: Model) -> None:
        which = model.leaderboard_edition or "all editions"
        self.query_one("#leaders-title", Label).update(
            f"Leaderboard, {which}, by rating (? provisional)")
        grid = self.query_one(DataTable)
        grid.clear()
        for row in model.leaderboard:
            rating = f"{row['rating']:.2f}{'?' if row.get('provisional') else ''}" if "rating" in row else "–"
            grid.add_row(Text(str(row["name"])), rating, str(row["wins"]), str(row["games"]))
        for bot in model.leaderboard_bots:
            grid.add_row(Text(f"bot: {bot['level']}", style="italic"),
                         f"{bot['rating']:.2f}{'?' if bot.get('provisional') else ''}", str(bot["wins"]),
                         str(bot["games"]))

    @on(DataTable.RowSelected)
    def row_chosen(self) -> None:
        self.action_profile()

    def action_profile(self) -> None:
        from .profile import ProfileScreen

        model: Model = self.app.model  # type: ignore[attr-defined]
        row = self.query_one(DataTable).cursor_row
        if 0 <= row < len(model.leaderboard):
            self.app.push_screen(ProfileScreen(str(model.leaderboard[row]["name"])))


class SettingsScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        app = self.app
        with Vertical(id="dialog"):
            yield Label("Settings")
            with Horizontal(classes="row"):
                yield Label("Theme")
                themes = [("high contrast (no colour)", "ono99-mono"), *[(n, n) for n in sorted(app.available_themes)
                                                                      if n != "ono99-mono"]]
                yield Select(themes, value=app.theme, allow_blank=False, id="theme")
            with Horizontal(classes="row"):
                yield Switch(bool(getattr(app, "bell_on_turn", True)), id="bell")
                yield Label("Ring the terminal bell on your turn")

    @on(Select.Changed, "#theme")
    def theme_changed(self, event: Select.Changed) -> None:
        self.app.theme = str(event.value)

    @on(Switch.Changed, "#bell")
    def bell_changed(self, event: Switch.Changed) -> None:
        self.app.bell_on_turn = event.value  # type: ignore[attr-defined]
