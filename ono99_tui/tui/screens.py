"""The screens of the terminal app."""

from __future__ import annotations

import contextlib
from typing import Any

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

from .. import text as words
from ..bots import BOT_LEVELS
from ..core.options import OPTION_WORDS, PointsWin
from ..i18n import LANGUAGES, N_, change_language, current_language
from ..i18n import gettext as _
from ..numbers import decimal
from . import lobby_list
from .host import Rewinds, ScreenHost, game_app_of, host_of, table_host_of
from .labels import (
    bot_level_name,
    bot_row_name,
    card_label,
    is_own_table,
    option_problem,
    rules_summary,
    table_name,
)
from .model import KnockOut, Model
from .rules_text import help_markdown
from .steady import LineLog, SteadyDigits
from .themes import theme_name
from .widgets import (
    Banner,
    ButtonRow,
    CardWidget,
    ClockBar,
    HandView,
    KeysFooter,
    SeatsView,
    StatusLine,
    TotalLabel,
    key_name,
    put_up_while_closing,
    show_text,
)


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

    def _on_resize(self, event: events.Resize) -> None:  # type: ignore[override]  # Screen's is async
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
        for _low, name in breakpoints:
            self.set_class(name == chosen, name, update=False)

    @property
    def ono(self) -> ScreenHost:
        """The app, as the screens use it."""
        return host_of(self)

    def refresh_model(self, model: Model) -> None:
        """Render the model (called after every server message)."""

    def show_text(self, selector: str, text: Text, *, fixed_size: bool = True) -> None:
        """Put ``text`` in the Static ``selector`` unless it shows that already (``show_text``)."""
        show_text(self.query_one(selector, Static), text, fixed_size=fixed_size)


# The local game's table is named in English and shown in the reader's language, which may change
# during the game (F2)
LOCAL_GAME = N_("Local game")


# --- the table ------------------------------------------------------------------------------------------
class TableScreen(ModelScreen):
    AUTO_FOCUS = None  # keys go to the hand; the chat input takes focus only with c
    BINDINGS = [
        Binding("1", "play(0)", N_("Play card 1"), show=False),
        Binding("2", "play(1)", N_("Play card 2"), show=False),
        Binding("3", "play(2)", N_("Play card 3"), show=False),
        Binding("4", "play(3)", N_("Play card 4"), show=False),
        Binding("left", "select(-1)", N_("Select"), show=False),
        Binding("right", "select(1)", N_("Select"), show=False),
        Binding("enter", "play_selected", N_("Play")),
        Binding("f", "discard_four", N_("Four ONO 99"), show=False),
        Binding("d", "draw", N_("Draw")),
        Binding("s", "start", N_("Start")),
        Binding("r", "rematch", N_("Play again")),
        Binding("c", "focus_chat", N_("Chat")),
        Binding("escape", "focus_hand", N_("Hand"), show=False),
        Binding("n", "new_game", N_("New game")),
        Binding("u", "stand_or_sit", N_("Stand/sit"), show=False),
        Binding("m", "seat_menu", N_("Seats"), show=False),
        Binding("l", "lobby", N_("Lobby")),
        Binding("question_mark", "help", N_("Help")),
        Binding("q", "app.quit", N_("Quit")),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.selected = 0
        self._log_written = 0
        self._was_my_turn = False
        self._log_epoch = -1
        self._chat_written = 0
        self._shown_game_over: tuple[Any, int] | None = None  # (table id, game number) of the last dialog
        self._bindings_for: tuple[Any, ...] = ()
        self._note_until: tuple[Any, ...] | None = None  # the moment the note under the cards is about

    def compose(self) -> ComposeResult:
        yield Static(id="title", markup=False)
        yield SeatsView(id="seats", markup=False)
        with Horizontal(id="middle"):
            with Vertical(id="total-box"):
                yield SteadyDigits("0", id="total")
                yield TotalLabel(id="total-label", markup=False)
            with Vertical(id="side"):
                yield Banner(id="banner", markup=False)
                yield StatusLine(id="status", markup=False)
        yield HandView(id="hand")
        yield Static(id="why", markup=False)
        with Horizontal(id="bottom"):
            yield LineLog(id="log", wrap=True, markup=False, highlight=False, max_lines=200)
            with Vertical(id="chat-box"):
                yield LineLog(id="chat", wrap=True, markup=False, highlight=False, max_lines=200)
                yield Input(placeholder=_("chat (c)"), id="chat-input", max_length=300)
        yield KeysFooter()

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        for log in self.query(RichLog):
            log.can_focus = False  # arrows and digits belong to the hand
        self.query_one("#chat-input", Input).can_focus = False  # until c is pressed
        self.refresh_model(self.ono.model)
        self.set_focus(None)
        self.set_interval(1.0, self._tick)
        game_app = game_app_of(self)  # None in ono99 replay, which keeps no settings
        if game_app is not None and not game_app.settings.hint_seen:
            self.app.push_screen(HintScreen())

    def on_screen_suspend(self) -> None:
        self._hold_bots()  # a dialog (or another screen) covers the table: a local game waits

    def on_screen_resume(self) -> None:
        self._hold_bots()

    def _hold_bots(self) -> None:
        # decided by what is on top now, not by which event came: a screen replaced by a new one
        # (the language changed) may be suspended after its successor was resumed
        game_app = game_app_of(self)  # None in ono99 replay, which has no bots to hold
        if game_app is not None:
            game_app.hold_bots_unless_table_shown()

    def footer_shows(self, action: str) -> bool:
        """Start and Play again show in the footer only when they would do something (pressed
        otherwise, they say why not)."""
        if action in ("start", "rematch"):
            table = self.ono.model.table
            host = (table is not None and table.host == self.ono.model.my_name) or self.ono.local
            return host and table is not None and table.status == ("waiting" if action == "start" else "finished")
        if action in ("play_selected", "draw"):  # a spectator, or a seat that is out, has no cards to play or draw
            view = self.ono.model.view
            if view is None or view.seat is None or not (view.active[view.seat] and view.in_hand[view.seat]):
                return False
            return action == "play_selected" or view.options.manual_draw  # else draws are taken for you
        return True

    @staticmethod
    def _moment(model: Model, lasts: str) -> tuple[Any, ...]:
        """What must stay the same for a note to stay true: the move (``turn``: a state of the game)
        or the game (``game``: until it ends or another starts)."""
        table, view = model.table, model.view
        game = (table.id if table is not None else None, model.game_no, view is not None and view.winner is None)
        return (*game, view.version if view is not None else None) if lasts == "turn" else game

    def note(self, text: str, lasts: str = "turn") -> None:
        """Say why a key did nothing (or what it did), under the cards, until the moment passes."""
        self.show_text("#why", Text(text), fixed_size=False)  # one line, or two for a long language
        self._note_until = (*self._moment(self.ono.model, lasts), lasts) if text else None

    def _drop_stale_note(self, model: Model) -> None:
        if self._note_until is not None and self._moment(model, self._note_until[-1]) != self._note_until[:-1]:
            self.note("")

    def _tick(self) -> None:
        """Count the turn clock down between server messages."""
        if self.ono.model.clock is not None:
            self.query_one(StatusLine).show(self.ono.model)
            self.query_one(Banner).show(model=self.ono.model)  # an open draw's countdown

    def refresh_model(self, model: Model) -> None:
        table = model.table
        title = Text()
        title.append(_("ONO 99"), style="bold")  # the game's name as the language writes it (German: Ono 99)
        title.append("  ·  ")
        if self.ono.local and not model.replay:  # one name for the local table, however it was opened
            name = _(LOCAL_GAME)
        elif table is None:
            name = _("Table")
        else:
            name = _("Your table") if is_own_table(table, model.my_name) else table_name(table)
        title.append(name)
        title.append(f"  ·  {rules_summary(table.options) if table is not None else model.edition}")
        if model.view is not None and model.view.seat is None:
            title.append("  ·  " + _("spectating"))
            if model.table is not None and model.table.you is None:  # a server's table: say how to sit
                title.append(" " + _("(u: sit down, m: seats)"))
        if not model.connected:
            title.append("  ·  " + model.connection_note(), style="bold reverse")
        self.show_text("#title", title)
        self.query_one(SeatsView).show(model)
        view = model.view
        total = self.query_one("#total", Digits)
        if total.value != (shown := str(view.total) if view else "0"):
            total.update(shown)
        self.query_one(TotalLabel).show(model)
        self.query_one(Banner).show(model)
        self.query_one(StatusLine).show(model)
        self._drop_stale_note(model)
        # the keys the footer shows change with what footer_shows answers (a new 1980 hand deals a seat back in)
        keys = tuple(self.footer_shows(action) for action in ("start", "rematch", "play_selected", "draw"))
        if keys != self._bindings_for:
            self._bindings_for = keys
            self.refresh_bindings()
        hand = view.hand if view else ()
        if hand and view:
            self.selected = min(self.selected, len(hand) - 1)
            if model.my_turn and not self._was_my_turn:  # a new turn: select the first playable card
                self.selected = next((i for i, c in enumerate(hand) if c in view.legal), self.selected)
        self._was_my_turn = model.my_turn
        self.query_one(HandView).show(model, self.selected)
        self._write_new_lines(model)
        game = (table.id if table else None, model.game_no)
        over = view is not None and view.winner is not None
        self._close_results(keep=game if over else None)  # one result at a time, of the game shown
        if model.knockout is not None and view is not None and view.winner is None:
            knockout, model.knockout = model.knockout, None
            self.app.push_screen(KnockOutScreen(knockout), self._after_dialog)
        if over and self._shown_game_over != game:
            self._shown_game_over = game
            model.knockout = None
            if isinstance(self.app.screen, KnockOutScreen):
                self.app.pop_screen()  # the game is over: the ranking says the rest
            self.ono.bell_if_wanted(end=True)
            self.app.push_screen(GameOverScreen(game), self._after_dialog)

    def _close_results(self, keep: tuple[Any, int] | None) -> None:
        """Close every game-over dialog but the one of ``keep`` (the finished game shown), with what
        was opened over it: a result left over a new game hides the hand while its clock runs. An
        update of the same finished game leaves its dialog open (a key pressed in it is not lost)."""
        stack = self.app.screen_stack
        stale = next((s for s in stack if isinstance(s, GameOverScreen) and s.game != keep), None)
        if stale is None:
            return
        while stale in self.app.screen_stack:
            self.app.pop_screen()

    def _after_dialog(self, choice: str | None) -> None:
        """The next step chosen in the game-over or knock-out dialog."""
        if choice == "rematch":
            self.action_rematch()
        elif choice == "new":
            self.action_new_game()
        elif choice == "lobby":
            self.action_lobby()
        elif choice == "fast":
            game_app = game_app_of(self)
            if game_app is not None:
                game_app.fast_forward()
                self.note(_("Fast-forward: the bots play the game out without waiting."), lasts="game")

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
            if entry.scope == "lobby":  # the lobby's lines reach the table too: say where they were said
                line.append(_("Lobby") + " · ", style="dim")
            line.append(Text(entry.sender, style="bold"))
            line.append(": ")
            line.append(Text(entry.text))
            lines.append(line)
        append_lines(chat, lines)
        if lines and self.has_class("-narrow"):  # no chat column: chat shows in the log
            append_lines(log, [Text.assemble(_("chat") + " · ", line) for line in lines])
        self._chat_written = model.chat_count

    # --- actions -------------------------------------------------------------------------------------
    def action_select(self, step: int) -> None:
        view = self.ono.model.view
        if view and view.hand:
            self.selected = (self.selected + step) % len(view.hand)
            self.refresh_model(self.ono.model)

    def action_play(self, index: int) -> None:
        model = self.ono.model
        view = model.view
        if view is None:
            return
        if view.winner is not None:  # the hand is empty then: say why the key does nothing
            self.note(_("The game is over: r plays again, n starts a new game.") if self.footer_shows("rematch")
                      else _("The game is over."), lasts="game")
            return
        if index >= len(view.hand):
            return
        self.selected = index
        code = view.hand[index]
        reason = model.reason_for(code)
        if reason is not None:
            self.note(_("Can't play {card}: {reason}").format(card=card_label(code, model.edition), reason=reason))
            self.refresh_model(model)
            return
        self.note("")
        self.ono.send_action(code)

    def action_play_selected(self) -> None:
        self.action_play(self.selected)

    def action_discard_four(self) -> None:
        model = self.ono.model
        if model.view and "ONO99x4" in model.view.legal:
            self.ono.send_action("ONO99x4")
        elif model.view is None or model.edition != "2022":
            self.note(_("f discards four ONO 99 cards, a move of the 2022 edition only."))
        elif not model.my_turn:
            self.note(_("f discards four ONO 99 cards, on your turn."))
        else:
            held = model.view.hand.count("ONO99")
            self.note(_("f discards four ONO 99 cards at once; you hold {held}.").format(held=held))

    def action_draw(self) -> None:
        if self.ono.model.can_draw:
            self.ono.send_action("draw")
        else:
            self.note(_("There is no draw to take."))

    def action_start(self) -> None:
        """The host starts the game (or a rematch); empty seats get bots."""
        model = self.ono.model
        table = model.table
        status, host = (table.status, table.host) if table is not None else (None, None)
        if status == "playing":
            self.note(_("The game is already running."))
            return
        if host != model.my_name and not self.ono.local:
            self.note(_("Only the host, {host}, can start the game.").format(host=host))
            return
        if status == "finished":
            self.action_rematch()
            return
        self.ono.send_message({"t": "start"})

    def action_rematch(self) -> None:
        """Play again at this table, once the game is over."""
        model = self.ono.model
        table = model.table
        if table is None or table.status != "finished":
            self.note(_("r plays again once the game is over."))
            return
        if table.host != model.my_name and not self.ono.local:
            self.note(_("Only the host, {host}, can start the next game.").format(host=table.host))
            return
        game_app = game_app_of(self)
        if game_app is not None:
            game_app.fast_forward(False)
        self.ono.send_message({"t": "rematch"})

    def action_focus_chat(self) -> None:
        chat = self.query_one("#chat-input", Input)
        chat.can_focus = True
        self.add_class("-chatting")  # a narrow screen shows the chat in place of the log meanwhile
        chat.focus()

    def action_focus_hand(self) -> None:
        self.query_one("#chat-input", Input).can_focus = False
        self.remove_class("-chatting")
        self.set_focus(None)

    def action_new_game(self) -> None:
        self.ono.action_new_game()

    def action_stand_or_sit(self) -> None:
        """Sit down (at the next game, while one runs) or stand up to watch."""
        table = self.ono.model.table
        if table is None or table.you is None:
            self.ono.send_message({"t": "sit"})
        else:
            question = (_("Stand up? A bot plays your cards until this game is over; u sits you down again "
                          "at the next game.") if self.ono.local else None)
            self.ono.confirm_leaving(lambda: self.ono.send_message({"t": "stand"}), _("Stand up"), local_too=True,
                                     question=question)

    def action_seat_menu(self) -> None:
        from .seats import ConfirmScreen, SeatMenuScreen

        def chosen(message: dict[str, Any] | None) -> None:
            if message is None:
                return
            if message["t"] != "kick":
                self.ono.send_message(message)
                return
            table = self.ono.model.table
            seat = message["seat"]
            name = table.seats[seat].name if table is not None and seat < len(table.seats) else ""

            def answered(yes: bool | None) -> None:  # removing a person is asked, as leaving is
                if yes:
                    self.ono.send_message(message)

            self.app.push_screen(ConfirmScreen(_("Remove {name} from the table? They are sent back to the lobby.")
                                               .format(name=name), yes=_("Remove")), answered)

        self.app.push_screen(SeatMenuScreen(self.ono.model), chosen)

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
        event.input.value = ""  # the input keeps the keyboard, for the next line; Esc goes back to the cards


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


# --- end of game ---------------------------------------------------------------------------------------
class GameOverScreen(ModalScreen[str | None]):
    """Who won, the ranking, and the next step: play again, a new game, the lobby, or close.
    Dismissed with the step chosen ("rematch", "new", "lobby") or None."""

    BINDINGS = [Binding("escape", "dismiss", N_("Close"))]

    def __init__(self, game: tuple[Any, int] | None = None) -> None:
        super().__init__()
        self.game = game  # (table id, game number) of the game it tells the end of
        self.steps: list[tuple[str, str, str]] = []  # (key, label, choice)

    def compose(self) -> ComposeResult:
        app = table_host_of(self)
        model = app.model
        view = model.view
        winner = view.winner if view is not None else None
        hosted_by = model.table.host if model.table is not None else None
        local = app.local
        replay = model.replay
        host = local or hosted_by == model.my_name
        if replay:
            self.steps = [("home", _("Back to the start"), "start")]
        else:
            if host:
                self.steps.append(("r", _("Play again"), "rematch"))
            self.steps.append(("n", _("New game"), "new"))
            if not local:
                self.steps.append(("l", _("Lobby"), "lobby"))
                self.steps.append(("p", _("Play now"), "play_now"))  # a new table with whoever is waiting
        title = _("You win!") if model.is_me(winner) else _("{name} wins!").format(name=model.plain_name(winner))
        with Vertical(id="dialog", classes="gameover"):
            yield Label(Text(title), id="winner")
            lines = Text()
            for place, seat in enumerate(model.ranking(), start=1):
                lines.append(f"{place}. ")
                lines.append(Text(model.seat_name(seat)))
                if view is not None and view.tokens is not None:
                    lines.append(f"  {words.tokens(view.tokens[seat])}")
                if view is not None and view.scores is not None:
                    lines.append(f"  {words.points(view.scores[seat])}")
                lines.append("\n")
            if not host and not replay:
                lines.append("\n" + _("{host} hosts this table and starts the next game.").format(
                    host=hosted_by))
            yield Static(lines, id="ranking", markup=False)
            with ButtonRow(id="buttons"):
                for index, (key, label, choice) in enumerate(self.steps):
                    yield Button(f"{label} ({key_name(key)})", id=choice,
                                 variant="primary" if index == 0 else "default")
                yield Button(_("Close (esc)"), id="close")
        yield KeysFooter()

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        for key, label, choice in self.steps:
            self._bindings.bind(key, f"choose('{choice}')", label)
        self.refresh_bindings()
        buttons = self.query("#buttons Button")
        if buttons:  # none while the app is closing
            buttons.first(Button).focus()  # Enter takes the first step

    def action_choose(self, choice: str) -> None:
        if choice == "play_now":  # leave this table for the play-now queue
            app = host_of(self)
            edition, seats = app.play_now_wish
            app.send_message({"t": "leave"})
            app.send_message({"t": "play_now", "edition": edition, "seats": seats})
            self.dismiss(None)
            return
        if choice == "start":
            if isinstance(self.app, Rewinds):  # ono99 replay
                self.app.go_to(0)
            self.dismiss(None)
            return
        self.dismiss(choice)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        choice = event.button.id
        if choice == "close":
            self.dismiss(None)
        elif choice is not None:
            self.action_choose(choice)


class KnockOutScreen(ModalScreen[str | None]):
    """How the reader was knocked out, dismissed before play goes on; with no person left in a
    local game, it offers to fast-forward the bots."""

    BINDINGS = [Binding("escape,enter", "dismiss", N_("Continue"))]

    def __init__(self, knockout: KnockOut) -> None:
        super().__init__()
        self.knockout = knockout

    def compose(self) -> ComposeResult:
        app = table_host_of(self)
        model = app.model
        k = self.knockout
        edition = model.edition
        held = ", ".join(card_label(code, edition) for code in k.cards) or _("no cards")
        if edition == "2022":
            title = _("You are out of this game")
        elif k.final:
            title = _("You are out of the match")
        elif model.points_scoring:
            title = _("You dropped out of hand {n}").format(n=(k.hand or 0) + 1)
        else:
            title = _("You lost hand {n}").format(n=(k.hand or 0) + 1)
        text = Text()
        text.append(_("At a total of {total}, none of your cards could be played.").format(total=k.total) + "\n")
        text.append(_("You held: {cards}.").format(cards=held) + "\n")
        if k.tokens is not None:
            text.append(_("Tokens left: {n}.").format(n=k.tokens) + "\n" if not k.final
                        else _("You have no tokens left.") + "\n")
        if k.score is not None:
            text.append(_("Your score: {points}.").format(points=words.points(k.score)) + "\n")
        humans_left = self._people_left(model)
        self.offer_fast = app.local and k.final and humans_left == 0
        if k.final:
            text.append("\n" + (_("The others play on (bots only).") if humans_left == 0 else _("The others play on.")))
        with Vertical(id="dialog", classes="gameover"):
            yield Label(Text(title), id="winner")
            yield Static(text, id="ranking", markup=False)
            with ButtonRow(id="buttons"):
                if self.offer_fast:
                    yield Button(_("Fast-forward (f)"), id="fast", variant="primary")
                yield Button(_("Watch (enter)") if k.final else _("Continue (enter)"), id="continue",
                             variant="default" if self.offer_fast else "primary")
        yield KeysFooter()

    @staticmethod
    def _people_left(model: Model) -> int:
        view = model.view
        seats = model.table.seats if model.table is not None else ()
        active = view.active if view is not None else ()
        me = view.seat if view is not None else None
        return sum(1 for i, seat in enumerate(seats)
                   if seat.kind == "human" and i < len(active) and active[i] and i != me)

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        if self.offer_fast:
            self._bindings.bind("f", "fast", N_("Fast-forward"))
            self.refresh_bindings()
        buttons = self.query("#continue")
        if buttons:  # none when the dialog was replaced as it opened (the game ended at once)
            buttons.first(Button).focus()  # Enter does what its label says

    def action_fast(self) -> None:
        self.dismiss("fast")

    @on(Button.Pressed, "#fast")
    def fast_pressed(self) -> None:
        self.dismiss("fast")

    @on(Button.Pressed, "#continue")
    def continue_pressed(self) -> None:
        self.dismiss(None)


class HintScreen(ModalScreen[None]):
    """The three things to know, shown once: on the first game of a new player."""

    BINDINGS = [Binding("escape,enter,space", "dismiss", N_("Got it"))]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="hint"):
            yield Label(_("Welcome to ONO 99"), id="winner")
            yield Static(Text(_(
                "1. Each card you play adds its value to one running total.\n"
                "2. Keep the total at 98 or below: when none of your cards fit, you are out.\n"
                "3. Special cards save you: −10 takes ten off, Reverse turns play around, Play 2 makes "
                "the next player play two cards. ONO 99 cards cannot be played alone.\n\n"
                "Press a card's key [1]–[4] to play it. ? shows the full rules at any time.")), markup=False)
            with Horizontal(id="buttons"):
                yield Button(_("Got it (enter)"), id="ok", variant="primary")
        yield KeysFooter()

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        self.query_one("#ok", Button).focus()

    @on(Button.Pressed, "#ok")
    def ok(self) -> None:
        self.dismiss(None)

    def dismiss(self, result: None = None) -> Any:
        app = host_of(self)
        app.settings.hint_seen = True
        app.save_settings()
        return super().dismiss(result)


# --- help --------------------------------------------------------------------------------------------------
class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss", N_("Close")), Binding("question_mark", "dismiss", N_("Close"))]

    def __init__(self, markdown: str | None = None) -> None:
        super().__init__()
        self.markdown = markdown  # None: the rules and the table's keys

    def compose(self) -> ComposeResult:
        yield ClockBar(markup=False)
        with VerticalScroll(id="help"):
            yield Markdown(help_markdown() if self.markdown is None else self.markdown)
        yield KeysFooter()


# --- new game ---------------------------------------------------------------------------------------------
BOOL_OPTIONS = [  # (option, its switch's label (core/options.py's OPTION_WORDS), the edition it belongs to or "")
    (name, OPTION_WORDS[name].switch or OPTION_WORDS[name].title, only) for name, only in (
        ("manual_draw", ""), ("eight_players", "2022"), ("bust_over_99", "1980"), ("ono99_on_zero", "1980"),
        ("ono99_sets_99", "1980"), ("out_at_zero_tokens", "1980"))
]  # labels translated where shown


class FieldSelect(Select[Any], inherit_bindings=False):
    """A choice of the new-game dialog: Space or an arrow opens it, and Enter, as everywhere in
    the dialog, starts the game."""

    BINDINGS = [Binding("down,space,up", "show_overlay", "Show menu", show=False)]


class FieldSwitch(Switch, inherit_bindings=False):
    """A switch of the new-game dialog: Space toggles it, and Enter starts the game."""

    BINDINGS = [Binding("space", "toggle_switch", "Toggle", show=False)]


class NewGameScreen(ModalScreen[dict[str, Any] | None]):
    """Choose edition, options, seats and bots; returns a create_table message. Focus starts on
    the first choice, and Enter starts the game with the settings shown from any of them; the
    choices are remembered for next time."""

    AUTO_FOCUS = "#edition"
    BINDINGS = [Binding("escape", "cancel", N_("Cancel")), Binding("enter", "start", N_("Start"))]

    def __init__(self, local: bool) -> None:
        super().__init__()
        self.local = local

    def _last(self, name: str, default: Any) -> Any:
        value = host_of(self).settings.new_game.get(name, default)
        return value if isinstance(value, type(default)) else default

    def compose(self) -> ComposeResult:
        edition = self._last("edition", "2022")
        edition = edition if edition in ("2022", "1980") else "2022"
        seats = self._last("seats", 4)
        yield ClockBar(markup=False)
        with Vertical(id="dialog", classes="newgame"):
            yield Label(_("New game"), id="dialog-title")
            with VerticalScroll(id="fields", can_focus=False):  # Tab goes from field to field
                with Horizontal(classes="row"):
                    yield Label(_("Edition"))
                    yield FieldSelect([("2022 (Mattel)", "2022"), ("1980 (O'NO 99)", "1980")], value=edition,
                                 allow_blank=False, id="edition")
                with Horizontal(classes="row"):
                    yield Label(_("Players") if not self.local else _("Players (you and bots)"))
                    yield FieldSelect([(str(n), n) for n in range(2, 9)], value=seats if 2 <= seats <= 8 else 4,
                                 allow_blank=False, id="seats")
                if not self.local:
                    with Horizontal(classes="row"):
                        yield Label(_("Bots"))
                        bots = self._last("bots", 0)
                        yield FieldSelect([(str(n), n) for n in range(0, 8)], value=bots if 0 <= bots <= 7 else 0,
                                     allow_blank=False, id="bots")
                with Horizontal(classes="row"):
                    yield Label(_("Bot level"))
                    level = self._last("bot_level", "greedy")
                    yield FieldSelect([(f"{bot_level_name(lv.name)}: {_(lv.description)}", lv.name)
                                       for lv in BOT_LEVELS.values()],
                                 value=level if level in BOT_LEVELS else "greedy", allow_blank=False, id="bot_level")
                with Horizontal(classes="row only-1980"):
                    yield Label(_(OPTION_WORDS["scoring"].title))
                    scoring = self._last("scoring", "tokens")
                    yield FieldSelect([(_("tokens (3 each)"), "tokens"), (_("points"), "points")],
                                 value=scoring if scoring in ("tokens", "points") else "tokens",
                                 allow_blank=False, id="scoring")
                with Horizontal(classes="row only-1980 only-points"):
                    yield Label(_(OPTION_WORDS["points_target"].title))
                    yield Input(str(self._last("points_target", 100)), id="points_target", type="integer")
                with Horizontal(classes="row only-1980 only-points"):
                    yield Label(_(OPTION_WORDS["points_win"].title))
                    win = self._last("points_win", "last_standing")
                    yield FieldSelect([(_(way.words), way.value) for way in PointsWin],
                                 value=win if win in ("last_standing", "lowest_score") else "last_standing",
                                 allow_blank=False, id="points_win")
                for name, label, only in BOOL_OPTIONS:
                    classes = f"row switch-row only-{only}" if only else "row switch-row"
                    if name == "out_at_zero_tokens":
                        classes += " only-tokens"  # with points scoring nobody has tokens to lose
                    with Horizontal(classes=classes):
                        yield FieldSwitch(bool(self._last(name, False)), id=name)
                        yield Label(_(label), classes="switch-label")
                if not self.local:
                    with Horizontal(classes="row"):
                        yield Label(_("Turn clock (s)"))
                        yield Input(str(self._last("turn_seconds", 30)), id="turn_seconds", type="integer")
                    with Horizontal(classes="row switch-row"):
                        yield FieldSwitch(bool(self._last("private", False)), id="private")
                        yield Label(_("Private (join by invite code)"), classes="switch-label")
            yield Static(id="more", markup=False)
            yield Static(id="problem", markup=False)
            with Horizontal(id="buttons"):
                yield Button(_("Start (enter)"), id="start", variant="primary")
                yield Button(_("Cancel (esc)"), id="cancel")
        yield KeysFooter()

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        self._show_rows()
        self.set_focus(self.query_one("#edition", Select))  # from the first choice on, Enter starts the game
        fields = self.query_one("#fields", VerticalScroll)
        self.watch(fields, "scroll_y", self._say_more, init=False)
        self.watch(fields, "virtual_size", self._say_more, init=False)

    def on_resize(self) -> None:
        self.call_after_refresh(self._say_more)

    def _say_more(self) -> None:
        """Say so when choices go on below what the dialog shows (at 80×24 the 1980 ones do)."""
        fields = self.query_one("#fields", VerticalScroll)
        more = fields.scroll_y < fields.max_scroll_y
        self.query_one("#more", Static).update(_("↓ more choices below (Tab or scroll)") if more else "")

    @on(Select.Changed)
    def _choice_changed(self) -> None:
        self._show_rows()

    def _show_rows(self) -> None:
        """Only the choices of the edition (and scoring) chosen."""
        edition = self.query_one("#edition", Select).value
        points = self.query_one("#scoring", Select).value == "points"
        for row in self.query(".row"):
            shown = not (row.has_class("only-1980") and edition != "1980") and \
                not (row.has_class("only-2022") and edition != "2022") and \
                not (row.has_class("only-points") and not points) and \
                not (row.has_class("only-tokens") and points)
            if row.display != shown:
                row.display = shown
        self.call_after_refresh(self._say_more)

    def _message(self) -> dict[str, Any]:
        edition = self.query_one("#edition", Select).value
        options: dict[str, Any] = {}
        points = self.query_one("#scoring", Select).value == "points"
        for name, _label, only in BOOL_OPTIONS:
            if self.query_one(f"#{name}", Switch).value and only in ("", edition) and \
                    not (name == "out_at_zero_tokens" and points):
                options[name] = True
        if edition == "1980":
            options["scoring"] = self.query_one("#scoring", Select).value
            if options["scoring"] == "points":
                options["points_target"] = int(self.query_one("#points_target", Input).value or 100)
                options["points_win"] = self.query_one("#points_win", Select).value
        seats = int(self.query_one("#seats", Select).value)  # type: ignore[arg-type]
        message: dict[str, Any] = {
            "t": "create_table", "edition": edition, "options": options, "seats": seats,
            "bots": seats - 1 if self.local else self.query_one("#bots", Select).value,
            "bot_level": self.query_one("#bot_level", Select).value,
        }
        if self.local:
            message.update(turn_seconds=0, start=True, replace_bots=True)  # u after standing up: back at the next game
        else:
            message["turn_seconds"] = int(self.query_one("#turn_seconds", Input).value or 0)
            message["private"] = self.query_one("#private", Switch).value
        return message

    def _remember(self, message: dict[str, Any]) -> None:
        app = host_of(self)
        choices: dict[str, Any] = {"edition": message["edition"], "seats": message["seats"],
                                   "bot_level": message["bot_level"]}
        if not self.local:
            choices.update(bots=message["bots"], turn_seconds=message["turn_seconds"], private=message["private"])
        for name, _label, _only in BOOL_OPTIONS:
            choices[name] = self.query_one(f"#{name}", Switch).value
        choices["scoring"] = self.query_one("#scoring", Select).value
        choices["points_win"] = self.query_one("#points_win", Select).value
        with contextlib.suppress(ValueError):
            choices["points_target"] = int(self.query_one("#points_target", Input).value or 100)
        app.settings.new_game = choices
        app.save_settings()

    @on(Button.Pressed, "#start")
    @on(Input.Submitted)
    def action_start(self) -> None:
        from ono99_tui.core.errors import OptionError
        from ono99_tui.core.options import TableOptions

        try:
            message = self._message()
            TableOptions.from_mapping(message["edition"], message["options"]).check_players(message["seats"])
            if not self.local and message["bots"] > message["seats"] - 1:
                raise ValueError(_("{players} leave room for at most {bots}").format(
                    players=words.players(message["seats"]), bots=words.bots(message["seats"] - 1)))
        except OptionError as exc:
            self.query_one("#problem", Static).update(Text(option_problem(exc)))
            return
        except ValueError as exc:
            self.query_one("#problem", Static).update(Text(str(exc)))
            return
        self._remember(message)
        self.dismiss(message)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


# --- lobby -------------------------------------------------------------------------------------------------
class LobbyScreen(ModelScreen):
    BINDINGS = [
        Binding("p", "play_now", N_("Play now")),
        Binding("n", "new_table", N_("New table")),
        Binding("j,enter", "join", N_("Join")),
        Binding("s", "spectate", N_("Watch"), show=False),  # s and i: the hint line under the tables tells them
        Binding("i", "invite", N_("Invite"), show=False),
        Binding("b", "leaderboard", N_("Leaderboard")),
        Binding("c", "focus_chat", N_("Chat"), show=False),
        Binding("escape", "focus_tables", N_("Tables"), show=False),
        Binding("v", "profile", N_("Profile")),
        Binding("r", "refresh", N_("Refresh"), show=False),  # the list updates by itself; r is for doubters
        Binding("question_mark", "help", N_("Help")),
        Binding("q", "app.quit", N_("Quit")),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._rows: list[lobby_list.Row] | None = None
        self._chat_written = 0
        self._last_row = 0  # the table list's row the cursor was on (to step over a group's label)

    def compose(self) -> ComposeResult:
        # The first content goes in at once: set after mounting, it would be drawn a second time.
        model = self.ono.model
        title, notice = self._title(model), self._notice(model)
        yield Static(title, id="title", markup=False)
        grid: DataTable[Any] = DataTable(id="tables", cursor_type="row", zebra_stripes=True)
        grid.add_columns("#", _("name"), _("rules"), _("seats"), _("bots"), _("status"), _("watching"))
        yield grid
        yield Static(notice, id="lobby-notice", markup=False)
        with Horizontal(id="lobby-bottom"):
            with Vertical(id="lobby-chat-box"):
                yield LineLog(id="lobby-chat", wrap=True, markup=False, highlight=False, max_lines=200)
                yield Input(placeholder=_("lobby chat (c)"), id="lobby-chat-input", max_length=300)
            yield Static(self._online(model), id="online", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        self.query_one("#lobby-chat", RichLog).can_focus = False
        self.refresh_model(self.ono.model)
        self.query_one(DataTable).focus()

    @staticmethod
    def _online(model: Model) -> Text:
        text = Text(_("Online ({n})").format(n=model.online_total) + "\n", style="bold")
        for player in model.online:
            text.append(Text(player.name))
            if player.away:
                text.append(" · " + _("away"))
            elif player.table is not None:
                text.append(" · " + _("table {n}").format(n=player.table))
            text.append("\n")
        return text

    def action_focus_chat(self) -> None:
        self.query_one("#lobby-chat-input", Input).focus()

    def action_focus_tables(self) -> None:
        self.query_one(DataTable).focus()

    @on(Input.Submitted, "#lobby-chat-input")
    def lobby_chat_sent(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.ono.send_message({"t": "chat", "text": event.value, "scope": "lobby"})
        event.input.value = ""

    @staticmethod
    def _title(model: Model) -> Text:
        title = Text()
        title.append(_("ONO 99"), style="bold")  # the game's name as the language writes it (German: Ono 99)
        if model.server_name and model.server_name != "ONO 99":
            title.append("  ·  ")
            title.append(model.server_name)
        title.append("  ·  " + _("you are") + " ")
        title.append(model.my_name or "?", style="bold")
        if not model.connected:
            title.append("  ·  " + model.connection_note(), style="bold reverse")
        return title

    @staticmethod
    def _notice(model: Model) -> Text:
        from .playnow import queue_line

        hint = _("p: play now · Enter or j: join the selected table · s: watch it · n: new table · i: invite code")
        if not model.tables:  # private tables are never listed: their code is the way in
            hint = _("No tables yet: press p to play now, n to create one, i to enter an invite code.")
        text = f"{model.notice}\n{hint}" if model.notice else hint  # i is not in the footer: the hint stays
        queues = queue_line(model)
        return Text(f"{text}\n{queues}" if queues else text)

    def refresh_model(self, model: Model) -> None:
        self.show_text("#title", self._title(model))
        rows = lobby_list.table_rows(model.tables)
        if rows != self._rows:
            grid = self.query_one(DataTable)
            chosen = self._selected_table()
            keep = grid.cursor_row
            self._rows = rows
            grid.clear()
            for key, cells, _table in rows:
                grid.add_row(*cells, key=key)
            same = next((i for i, row in enumerate(rows) if chosen is not None and row[2] == chosen), None)
            target = same if same is not None else lobby_list.nearest_table_row(rows, min(keep, len(rows) - 1))
            if target is not None:
                self._last_row = target
                grid.move_cursor(row=target)
        self.show_text("#lobby-notice", self._notice(model), fixed_size=False)  # its height follows its text
        self.show_text("#online", self._online(model), fixed_size=False)
        fresh = model.chat_count - self._chat_written
        lines = []
        for entry in list(model.chat)[-fresh:] if fresh > 0 else []:
            if entry.scope == "lobby":
                line = Text()
                line.append(Text(entry.sender, style="bold"))
                line.append(": ")
                line.append(Text(entry.text))
                lines.append(line)
        append_lines(self.query_one("#lobby-chat", RichLog), lines)
        self._chat_written = model.chat_count

    def _selected_table(self) -> int | None:
        grid = self.query_one(DataTable)
        rows = self._rows or []
        return rows[grid.cursor_row][2] if 0 <= grid.cursor_row < len(rows) else None

    @on(DataTable.RowHighlighted, "#tables")
    def step_over_group_label(self, event: DataTable.RowHighlighted) -> None:
        """The cursor never rests on a group's label: it goes on to the next table its way."""
        rows, row = self._rows or [], event.data_table.cursor_row  # where it is now: the event may be stale
        step = -1 if row < self._last_row else 1
        target = lobby_list.nearest_table_row(rows, row, step) if 0 <= row < len(rows) else None
        if target is not None and target != row:
            event.data_table.move_cursor(row=target)
        self._last_row = target if target is not None else row

    def _no_table(self, doing: str) -> None:
        text = (_("There is no table to join yet: press n to create one.") if doing == "join"
                else _("There is no table to watch yet: press n to create one."))
        self.app.notify(text, timeout=5)

    def action_join(self) -> None:
        table = self._selected_table()
        if table is None:
            if not self.ono.model.tables:
                self._no_table("join")
            return
        self.ono.send_message({"t": "join", "table": table})

    @on(DataTable.RowSelected)
    def row_chosen(self) -> None:
        self.action_join()

    def action_spectate(self) -> None:
        table = self._selected_table()
        if table is None:
            if not self.ono.model.tables:
                self._no_table("watch")
            return
        self.ono.send_message({"t": "spectate", "table": table})

    def action_new_table(self) -> None:
        self.ono.action_new_game()

    def action_invite(self) -> None:
        def joined(code: str | None) -> None:
            if code:
                self.ono.join_by_code(code)

        self.app.push_screen(InviteScreen(), joined)

    def action_leaderboard(self) -> None:
        self.ono.send_message({"t": "leaderboard", "follow": True})  # updated after each game while open
        self.app.push_screen(LeaderboardScreen())

    def action_refresh(self) -> None:
        self.ono.send_message({"t": "list_tables"})

    def action_play_now(self) -> None:
        edition, seats = self.ono.play_now_wish
        if self.ono.local:  # nobody else can come to a local game: bots take the other seats at once
            self.ono.send_message({"t": "create_table", "edition": edition, "seats": seats, "bots": seats - 1,
                                   "bot_level": "greedy", "turn_seconds": 0, "start": True})
            return
        self.ono.send_message({"t": "play_now", "edition": edition, "seats": seats})

    def action_profile(self) -> None:
        host_of(self).show_profile()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())


class InviteScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(_("Join a private table by its invite code"))
            yield Input(placeholder=_("e.g. K7QX2M"), id="code", max_length=16)

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class LeaderboardScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "dismiss", N_("Close")),
        Binding("a", "edition('')", N_("All")),
        Binding("2", "edition('2022')", "2022"),
        Binding("1", "edition('1980')", "1980"),
        Binding("enter", "profile", N_("Profile")),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(_("Leaderboard, by rating (? provisional)"), id="leaders-title")
            yield DataTable(id="leaders", cursor_type="row")
        yield KeysFooter()

    def action_edition(self, edition: str) -> None:
        message: dict[str, Any] = {"t": "leaderboard", "follow": True}
        if edition:
            message["edition"] = edition
        host_of(self).send_message(message)

    async def action_dismiss(self, result: None = None) -> None:
        host_of(self).send_message({"t": "leaderboard", "follow": False})
        await super().action_dismiss(result)

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        grid = self.query_one(DataTable)
        grid.add_columns(_("player"), _("rating"), _("wins"), _("games"))
        self.refresh_model(host_of(self).model)

    def refresh_model(self, model: Model) -> None:
        which = model.leaderboard_edition or _("all editions")
        self.query_one("#leaders-title", Label).update(
            _("Leaderboard, {which}, by rating (? provisional)").format(which=which))
        grid = self.query_one(DataTable)
        grid.clear()
        for row in model.leaderboard:
            rating = f"{decimal(row.rating)}{'?' if row.provisional else ''}"
            grid.add_row(Text(row.name), rating, str(row.wins), str(row.games))
        for bot in model.leaderboard_bots:
            grid.add_row(Text(bot_row_name(bot.name), style="italic"),
                         f"{decimal(bot.rating)}{'?' if bot.provisional else ''}", str(bot.wins),
                         str(bot.games))

    @on(DataTable.RowSelected)
    def row_chosen(self) -> None:
        self.action_profile()

    def action_profile(self) -> None:
        host = host_of(self)
        row = self.query_one(DataTable).cursor_row
        if 0 <= row < len(host.model.leaderboard):
            host.show_profile(host.model.leaderboard[row].name)


class SettingsScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss", N_("Close"))]

    def compose(self) -> ComposeResult:
        app = self.app
        host = host_of(self)
        yield ClockBar(markup=False)
        with Vertical(id="dialog"):
            yield Label(_("Settings"))
            with Horizontal(classes="row"):
                yield Label(_("Theme"))
                themes = [(theme_name("ono99-mono"), "ono99-mono"),
                          *sorted(((theme_name(n), n) for n in app.available_themes if n != "ono99-mono"),
                                  key=lambda pair: pair[0].casefold())]
                yield Select(themes, value=app.theme, allow_blank=False, id="theme")
            with Horizontal(classes="row"):
                yield Label(_("Language"))
                yield Select([(name, code) for code, name in LANGUAGES.items()], value=current_language(),
                             allow_blank=False, id="language")
            with Horizontal(classes="row"):
                yield Switch(host.bell_on_turn, id="bell")
                yield Label(_("Ring the terminal bell on your turn"))
            if host.keep_settings:
                with Horizontal(classes="row"):
                    yield Label(_("Your name"))
                    yield Input(host.settings.name or host.player_name, id="name", max_length=20)
                yield Static(_("Your name is used from the next game or connection on."), markup=False)
        yield KeysFooter()  # its own keys, not the table's under it

    @on(Select.Changed, "#theme")
    def theme_changed(self, event: Select.Changed) -> None:
        self.app.theme = str(event.value)
        host = host_of(self)
        host.settings.theme = self.app.theme
        host.save_settings()

    @on(Select.Changed, "#language")
    def language_changed(self, event: Select.Changed) -> None:
        """Speak the language chosen from now on (an SSH session: that session only), and keep it."""
        language = str(event.value)
        if language == current_language():
            return
        change_language(language)
        host = host_of(self)
        host.settings.language = language
        host.save_settings()
        self.dismiss()
        host.relabel()

    @on(Input.Changed, "#name")
    def name_changed(self, event: Input.Changed) -> None:
        host = host_of(self)
        name = event.value.strip()
        if name and name.isprintable():
            host.settings.name = name
            host.save_settings()

    @on(Switch.Changed, "#bell")
    def bell_changed(self, event: Switch.Changed) -> None:
        host = host_of(self)
        host.bell_on_turn = event.value
        host.settings.bell = event.value
        host.save_settings()
